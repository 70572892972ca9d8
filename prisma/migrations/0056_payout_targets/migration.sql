-- Issue 22: each target of a mass payout has its own state, moved only through one door
-- (lib/payouts/targets.ts: a transition table and one function that refuses other moves), and a
-- payout that cannot finish can be returned to the merchant (docs/payouts.md).

CREATE TYPE "PayoutTargetState" AS ENUM ('PENDING', 'SENDING', 'PAID', 'FAILED', 'RETURNED');

-- One row per target of a MULTIPLE_TRANSFER invoice, written when the payout is created.
CREATE TABLE "payout_targets" (
    "invoice_id" INTEGER NOT NULL,
    "index" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "amount_units" BIGINT NOT NULL,
    "state" "PayoutTargetState" NOT NULL DEFAULT 'PENDING',
    "error" TEXT,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "payout_targets_pkey" PRIMARY KEY ("invoice_id", "index")
);
ALTER TABLE "payout_targets" ADD CONSTRAINT "payout_targets_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A return asked for (dashboard or `npm run payout:return`): where to, and when the worker finished it.
CREATE TABLE "payout_returns" (
    "invoice_id" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "returned_at" TIMESTAMPTZ(6),
    CONSTRAINT "payout_returns_pkey" PRIMARY KEY ("invoice_id")
);
ALTER TABLE "payout_returns" ADD CONSTRAINT "payout_returns_invoice_id_fkey" FOREIGN KEY ("invoice_id") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The return's sends: the payout's token back to the merchant, for a USDT payout the merchant's
-- own TRX there too, and the gas for the USDT send; each booked as PAYOUT_RETURN in the ledger.
ALTER TYPE "SendPurpose" ADD VALUE 'PAYOUT_RETURN';
ALTER TYPE "SendPurpose" ADD VALUE 'PAYOUT_RETURN_TRX';
ALTER TYPE "SendPurpose" ADD VALUE 'PAYOUT_RETURN_GAS';
ALTER TYPE "LedgerKind" ADD VALUE 'PAYOUT_RETURN';

-- Existing payouts: a target is PAID when a send to it confirmed, FAILED when the payout lists
-- it in failed_targets, SENDING when a send was built for it, else PENDING.
INSERT INTO "payout_targets" ("invoice_id", "index", "address", "amount_units", "state", "error")
SELECT i."id", t.ord - 1, t.target->>'address', round((t.target->>'amount')::numeric * 1000000)::bigint,
  (CASE
    WHEN EXISTS (SELECT 1 FROM "transactions" s WHERE s."invoice_id" = i."id" AND s."send_purpose" = 'PAYOUT_TARGET' AND s."send_index" = t.ord - 1 AND s."send_state" = 'CONFIRMED') THEN 'PAID'
    WHEN EXISTS (SELECT 1 FROM jsonb_array_elements((CASE WHEN jsonb_typeof(i."failed_targets") = 'array' THEN i."failed_targets" ELSE '[]'::jsonb END)) f WHERE (f->>'index')::int = t.ord - 1) THEN 'FAILED'
    WHEN EXISTS (SELECT 1 FROM "transactions" s WHERE s."invoice_id" = i."id" AND s."send_purpose" = 'PAYOUT_TARGET' AND s."send_index" = t.ord - 1) THEN 'SENDING'
    ELSE 'PENDING'
  END)::"PayoutTargetState",
  (SELECT f->>'error' FROM jsonb_array_elements((CASE WHEN jsonb_typeof(i."failed_targets") = 'array' THEN i."failed_targets" ELSE '[]'::jsonb END)) f WHERE (f->>'index')::int = t.ord - 1 LIMIT 1)
FROM "invoices" i, jsonb_array_elements(i."target_wallets") WITH ORDINALITY AS t(target, ord)
WHERE i."type" = 'MULTIPLE_TRANSFER' AND jsonb_typeof(i."target_wallets") = 'array';
