-- Settlement engine (issue 13).

-- What a send is for, as a column: the worker never re-parses send_key.
CREATE TYPE "SendPurpose" AS ENUM ('FORWARD', 'FORWARD_GAS', 'REFUND', 'REFUND_GAS', 'PAYOUT_TARGET', 'PAYOUT_GAS');
-- Who pays a send's network cost (docs/worker.md, "Fees and who pays what"):
-- PAYMENT: taken out of the moved amount; MERCHANT: charged to the activation balance;
-- PAYOUT: paid by the payout's own top-up (quoted); SERVICE: absorbed by the service.
CREATE TYPE "CostPayer" AS ENUM ('PAYMENT', 'MERCHANT', 'PAYOUT', 'SERVICE');

ALTER TABLE "transactions" ADD COLUMN "send_purpose" "SendPurpose";
ALTER TABLE "transactions" ADD COLUMN "send_attempt" INTEGER;
-- Payout targets: the index of the target in target_wallets; gas sends: the attempt (payouts: the wave) they fund.
ALTER TABLE "transactions" ADD COLUMN "send_index" INTEGER;
ALTER TABLE "transactions" ADD COLUMN "cost_payer" "CostPayer";

-- Rows written before this migration: their purpose was only in send_key.
UPDATE "transactions" SET
  "send_attempt" = split_part("send_key", ':', 3)::int,
  "send_purpose" = (CASE
    WHEN split_part("send_key", ':', 2) = 'forward' THEN 'FORWARD'
    WHEN split_part("send_key", ':', 2) = 'refund' THEN 'REFUND'
    WHEN split_part("send_key", ':', 2) LIKE 'gas-%' THEN 'FORWARD_GAS'
    WHEN split_part("send_key", ':', 2) LIKE 'refundgas-%' THEN 'REFUND_GAS'
    WHEN split_part("send_key", ':', 2) LIKE 'target-%' THEN 'PAYOUT_TARGET'
    ELSE 'PAYOUT_GAS' END)::"SendPurpose",
  "send_index" = CASE WHEN split_part("send_key", ':', 2) LIKE 'target-%' THEN split_part(split_part("send_key", ':', 2), '-', 2)::int END,
  "cost_payer" = (CASE
    WHEN split_part("send_key", ':', 2) LIKE 'gas-%' THEN 'MERCHANT'
    WHEN split_part("send_key", ':', 2) = 'forward' AND "currency" = 'USDT' THEN 'MERCHANT'
    WHEN split_part("send_key", ':', 2) IN ('forward', 'refund') THEN 'PAYMENT'
    WHEN split_part("send_key", ':', 2) LIKE 'refundgas-%' THEN 'SERVICE'
    ELSE 'PAYOUT' END)::"CostPayer"
  WHERE "send_key" IS NOT NULL;
-- Gas sends funded the step attempt named in their purpose ("gas-2" funds forward attempt 2).
UPDATE "transactions" SET "send_index" = split_part(split_part("send_key", ':', 2), '-', 2)::int
  WHERE "send_purpose" IN ('FORWARD_GAS', 'REFUND_GAS', 'PAYOUT_GAS');

CREATE INDEX "transactions_source_purpose_idx" ON "transactions"("source_id", "send_purpose", "send_index", "send_attempt");

-- The ledger: every movement of value at a service address (lib/ledger).
CREATE TYPE "LedgerKind" AS ENUM (
  'PAYMENT_IN',   -- a customer's payment arrived (+)
  'GAS_IN',       -- TRX from the gas wallet arrived (+)
  'OTHER_IN',     -- anything else arrived, e.g. our own send landing on another invoice's address (+)
  'GAS_OUT',      -- the gas wallet sent TRX (-)
  'FORWARD',      -- sent to the merchant (-)
  'REFUND',       -- returned to the sender (-)
  'PAYOUT',       -- sent to a payout target (-)
  'SWEEP',        -- sent to the treasury (-)
  'NETWORK_COST', -- burned by the network, also for failed sends (-)
  'FEE_KEPT',     -- classification: part of a payment the service keeps at the address (0)
  'HELD'          -- classification: part of a payment held at the address, with a reason (0)
);

CREATE TABLE "ledger_entries" (
  "id" SERIAL PRIMARY KEY,
  "address" TEXT NOT NULL,
  "currency" "Currency" NOT NULL,
  "kind" "LedgerKind" NOT NULL,
  -- Signed change of the address's balance; 0 for classifications (FEE_KEPT, HELD).
  "delta_units" BIGINT NOT NULL,
  -- For classifications and payment-related rows: the amount of the payment it concerns.
  "units" BIGINT NOT NULL,
  "invoice_id" INTEGER REFERENCES "invoices"("id"),
  -- The incoming payment this movement belongs to (its equation), if any.
  "payment_id" INTEGER REFERENCES "transactions"("id"),
  -- The chain transaction row that moved it (a send or a payment).
  "transaction_id" INTEGER REFERENCES "transactions"("id"),
  "reason" TEXT,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
-- One row per kind per moving transaction: a retried booking cannot write it twice.
CREATE UNIQUE INDEX "ledger_entries_tx_kind_key" ON "ledger_entries"("transaction_id", "kind", "address");
CREATE INDEX "ledger_entries_address_idx" ON "ledger_entries"("address", "currency");
CREATE INDEX "ledger_entries_invoice_idx" ON "ledger_entries"("invoice_id");
CREATE INDEX "ledger_entries_payment_idx" ON "ledger_entries"("payment_id");

-- Money the engine cannot move economically or safely stays at the address, visibly (docs/worker.md, "Held funds").
ALTER TYPE "PaymentState" ADD VALUE 'HELD';
ALTER TABLE "transactions" ADD COLUMN "held_reason" TEXT;
-- Retries of what the service can fix (node down, gas wallet short): counted for the backoff.
ALTER TABLE "transactions" ADD COLUMN "retries" INTEGER NOT NULL DEFAULT 0;

-- One send in flight per address (issue 13, case 1): the worker checks before building
-- (lib/payments/sends.ts); these make a race between two workers fail on insert instead.
CREATE UNIQUE INDEX "transactions_one_send_in_flight_from" ON "transactions"("from_address")
  WHERE "send_state" IN ('SIGNED', 'BROADCAST') AND "send_purpose" IN ('FORWARD', 'REFUND');
CREATE UNIQUE INDEX "transactions_one_gas_in_flight_to" ON "transactions"("to_address")
  WHERE "send_state" IN ('SIGNED', 'BROADCAST') AND "send_purpose" IN ('FORWARD_GAS', 'REFUND_GAS');

-- An operator's `npm run payment:retry` grants a FAILED payment SEND_MAX_ATTEMPTS more sends.
ALTER TABLE "transactions" ADD COLUMN "operator_retries" INTEGER NOT NULL DEFAULT 0;
-- A merchant's release of HELD funds: forward them, or return them to `release_address`.
CREATE TYPE "ReleaseAction" AS ENUM ('FORWARD', 'REFUND');
ALTER TABLE "transactions" ADD COLUMN "release_action" "ReleaseAction";
ALTER TABLE "transactions" ADD COLUMN "release_address" TEXT;
