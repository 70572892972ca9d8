-- A ledger of the merchants' two balances (issue 22): every change of merchants.balance_sun and
-- merchants.activation_balance_sun is a row here, written in the same DB transaction as its cause
-- (lib/merchants/balance.ts), so `npm run reconcile` can prove each balance row by row.
CREATE TYPE "MerchantBalance" AS ENUM ('BALANCE', 'ACTIVATION');
CREATE TYPE "MerchantBalanceKind" AS ENUM ('OPENING', 'AML_CHECK', 'NETWORK_FEE', 'TOPUP_CREDIT');

CREATE TABLE "merchant_balance_entries" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id"),
  "balance" "MerchantBalance" NOT NULL,
  "kind" "MerchantBalanceKind" NOT NULL,
  "delta_sun" BIGINT NOT NULL,
  -- The payment (AML check, top-up) or send (network fee) that caused it; null for OPENING.
  "transaction_id" INTEGER REFERENCES "transactions"("id"),
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
-- One row per cause: a retried booking writes nothing twice.
CREATE UNIQUE INDEX "merchant_balance_entries_cause_key" ON "merchant_balance_entries" ("transaction_id", "kind", "balance");
CREATE INDEX "merchant_balance_entries_merchant_idx" ON "merchant_balance_entries" ("merchant_id");

-- What was booked before this ledger existed, so an old database reconciles: one row per cause the
-- reconciliation can prove (a completed AML check at the cost its record names, a merchant-paid
-- send's burned fee, a TRX top-up), and an OPENING row with whatever else the balance holds
-- (USDT top-ups, whose rates were not kept, and anything set by hand).
INSERT INTO "merchant_balance_entries" ("merchant_id", "balance", "kind", "delta_sun", "transaction_id")
  SELECT "merchant_id", 'BALANCE', 'AML_CHECK', -ROUND(("aml_check"->>'cost')::numeric * 1000000)::bigint, "id"
  FROM "transactions" WHERE "type" = 'PAYMENT' AND ("aml_check"->>'completed')::boolean AND ("aml_check"->>'cost')::numeric > 0;
INSERT INTO "merchant_balance_entries" ("merchant_id", "balance", "kind", "delta_sun", "transaction_id")
  SELECT "merchant_id", 'ACTIVATION', 'NETWORK_FEE', -"fee_sun", "id"
  FROM "transactions" WHERE "send_state" = 'CONFIRMED' AND "cost_payer" = 'MERCHANT' AND "fee_sun" > 0;
INSERT INTO "merchant_balance_entries" ("merchant_id", "balance", "kind", "delta_sun", "transaction_id")
  SELECT t."merchant_id", CASE WHEN t."to_address" = m."activation_wallet_address" THEN 'ACTIVATION' ELSE 'BALANCE' END::"MerchantBalance", 'TOPUP_CREDIT', t."amount_units", t."id"
  FROM "transactions" t JOIN "merchants" m ON m."id" = t."merchant_id"
  WHERE t."type" = 'TOPUP' AND t."invoice_id" IS NULL AND t."payment_state" = 'SETTLED' AND t."currency" = 'TRX' AND t."amount_units" > 0;
INSERT INTO "merchant_balance_entries" ("merchant_id", "balance", "kind", "delta_sun")
  SELECT m."id", b."balance", 'OPENING', b."held" - COALESCE((SELECT SUM(e."delta_sun") FROM "merchant_balance_entries" e WHERE e."merchant_id" = m."id" AND e."balance" = b."balance"), 0)
  FROM "merchants" m
  CROSS JOIN LATERAL (VALUES ('BALANCE'::"MerchantBalance", m."balance_sun"), ('ACTIVATION'::"MerchantBalance", m."activation_balance_sun")) AS b("balance", "held")
  WHERE b."held" <> COALESCE((SELECT SUM(e."delta_sun") FROM "merchant_balance_entries" e WHERE e."merchant_id" = m."id" AND e."balance" = b."balance"), 0);

-- The figures a computed amount was made from, so the reconciliation recomputes it instead of
-- trusting it: on a refunded payment, the network cost in sun its refund send deducted from what is
-- returned (TRX: the estimated burn; USDT: the gas with its margin) and, for USDT, the two rates it
-- was converted at; on a USDT top-up, the two rates its credit was converted at.
ALTER TABLE "transactions"
  ADD COLUMN "cost_sun" BIGINT,
  ADD COLUMN "trx_rate_usd" DECIMAL(30, 12),
  ADD COLUMN "usdt_rate_usd" DECIMAL(30, 12);
