-- Rented energy (issue 23, docs/energy.md, "Rented energy"): between the pool and burning, a USDT
-- send's energy may be bought from a provider's API (itrx.io). Each order is a row recorded BEFORE
-- the provider is called, keyed by out_trade_no (payment, purpose, attempt), so a crash and retry
-- never orders twice for one attempt.
CREATE TYPE "EnergyRentalState" AS ENUM ('ORDERING', 'ORDERED', 'FILLED', 'FAILED', 'ABANDONED');

CREATE TABLE "energy_rentals" (
  "id" SERIAL PRIMARY KEY,
  -- The payment (or payout top-up) whose send the energy is for.
  "payment_id" INTEGER NOT NULL REFERENCES "transactions"("id"),
  "purpose" "SendPurpose" NOT NULL,
  "attempt" INTEGER NOT NULL,
  "out_trade_no" TEXT NOT NULL,
  "receive_address" TEXT NOT NULL,
  "energy_amount" BIGINT NOT NULL,
  "period" TEXT NOT NULL,
  "state" "EnergyRentalState" NOT NULL,
  -- The provider's order number (`serial`) once it accepted the order.
  "serial" TEXT,
  -- What the provider charged (`amount`, sun) once it accepted; booked in the ledger (ENERGY_RENTAL).
  "price_sun" BIGINT,
  "error" TEXT,
  "ordered_at" TIMESTAMPTZ(6),
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "energy_rentals_out_trade_no_key" ON "energy_rentals"("out_trade_no");
CREATE UNIQUE INDEX "energy_rentals_step_key" ON "energy_rentals"("payment_id", "purpose", "attempt");

-- The price of a rental leaves the provider account (prepaid, off chain) (-); reconcile proves the
-- rows against energy_rentals and the provider's own account summary.
ALTER TYPE "LedgerKind" ADD VALUE 'ENERGY_RENTAL';
-- A forward's rented energy is charged to the merchant's activation balance, as burned TRX is.
ALTER TYPE "MerchantBalanceKind" ADD VALUE 'ENERGY_RENTAL';
