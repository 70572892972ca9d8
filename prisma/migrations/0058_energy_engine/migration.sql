-- Energy engine (issue 23, docs/energy.md): sends paid with the service's staked energy.

-- Stake 2.0 transactions of the pool (the gas wallet) are sends like any other: stored before broadcast.
ALTER TYPE "TransactionType" ADD VALUE 'DELEGATE';
ALTER TYPE "TransactionType" ADD VALUE 'UNDELEGATE';
ALTER TYPE "TransactionType" ADD VALUE 'STAKE';
ALTER TYPE "TransactionType" ADD VALUE 'UNSTAKE';
-- FORWARD_ENERGY / REFUND_ENERGY: the pool lends an invoice address the energy of one send attempt;
-- ENERGY_RECLAIM: it takes back what it lent once nothing there needs it; POOL_STAKE: an operator's stake or unstake.
ALTER TYPE "SendPurpose" ADD VALUE 'FORWARD_ENERGY';
ALTER TYPE "SendPurpose" ADD VALUE 'REFUND_ENERGY';
-- ... and the bandwidth of that send when the address's free allowance is used up (a static address's second send of a day).
ALTER TYPE "SendPurpose" ADD VALUE 'FORWARD_BANDWIDTH';
ALTER TYPE "SendPurpose" ADD VALUE 'REFUND_BANDWIDTH';
ALTER TYPE "SendPurpose" ADD VALUE 'ENERGY_RECLAIM';
ALTER TYPE "SendPurpose" ADD VALUE 'POOL_STAKE';
-- The pool's TRX leaving its balance for stake (-) and coming back from an unstake (+); reconcile
-- proves the stake they sum to against the account's stake on chain.
ALTER TYPE "LedgerKind" ADD VALUE 'STAKE';
ALTER TYPE "LedgerKind" ADD VALUE 'UNSTAKE';

CREATE TYPE "EnergySource" AS ENUM ('POOL', 'RENTAL', 'BURN');

-- What paid a USDT send's energy, and what the send used and burned, from its receipt.
ALTER TABLE "transactions" ADD COLUMN "energy_source" "EnergySource";
-- USDT sends: the energy they were sized for; DELEGATE/UNDELEGATE: the energy (or bandwidth bytes) lent.
ALTER TABLE "transactions" ADD COLUMN "energy_units" BIGINT;
-- DELEGATE/UNDELEGATE/STAKE/UNSTAKE: the stake (sun) they move; `amount_units` is 0, no TRX leaves the account.
ALTER TABLE "transactions" ADD COLUMN "stake_sun" BIGINT;
ALTER TABLE "transactions" ADD COLUMN "resource" TEXT;
ALTER TABLE "transactions" ADD COLUMN "energy_used" BIGINT;
ALTER TABLE "transactions" ADD COLUMN "bandwidth_used" BIGINT;

-- Payments: why the forward or refund waits (e.g. "waiting for energy"), shown to the merchant; null when it does not.
ALTER TABLE "transactions" ADD COLUMN "waiting_reason" TEXT;

-- The pool's own operations (an operator's stake) belong to no merchant.
ALTER TABLE "transactions" ALTER COLUMN "merchant_id" DROP NOT NULL;

-- What the energy pool can pay for now, published by the worker's energy job (lib/energy/status.ts)
-- for the web: the smallest USDT invoice is judged by the cheapest source available, not the worst burn.
CREATE TABLE "energy_status" (
  "id" INTEGER PRIMARY KEY DEFAULT 1 CHECK ("id" = 1),
  "pool_enabled" BOOLEAN NOT NULL,
  "lendable_energy" BIGINT NOT NULL,
  "lent_energy" BIGINT NOT NULL,
  -- What a USDT forward from a fresh address costs with the pool now (activation), in sun; null when the pool cannot pay one.
  "usdt_forward_cost_sun" BIGINT,
  "updated_at" TIMESTAMPTZ(6) NOT NULL
);
