-- Merchant refunds (issue 36): a refund of part or all of what a sale received, to an address the
-- merchant names or one the customer enters on the claim page. Once its address is known it goes
-- out as a one-target mass payout (`payout_id`, an invoice of type MULTIPLE_TRANSFER) that the
-- merchant tops up, so it is sent, costed, booked and reconciled by the payout engine. Its own
-- state says only what comes before that payout, or that it was canceled before one existed; what
-- the payout does afterwards is read from the payout (lib/refunds/status.ts). Moved only by
-- changeRefundState (lib/refunds/states.ts).
CREATE TYPE "RefundState" AS ENUM ('WAITING_ADDRESS', 'PAYOUT', 'CANCELED');

CREATE TABLE "refunds" (
    "id" SERIAL PRIMARY KEY,
    "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id"),
    "invoice_id" INTEGER NOT NULL REFERENCES "invoices"("id"),
    "currency" "Currency" NOT NULL,
    "amount_units" BIGINT NOT NULL CHECK ("amount_units" > 0),
    -- Named by the merchant, or entered by the customer on the claim page; null until then.
    "address" TEXT,
    -- Whether the customer enters the address (a claim link), rather than the merchant.
    "claim" BOOLEAN NOT NULL,
    -- The merchant's note (optional), echoed as `reason`.
    "reason" VARCHAR(500),
    "state" "RefundState" NOT NULL DEFAULT 'WAITING_ADDRESS',
    "payout_id" INTEGER UNIQUE REFERENCES "invoices"("id"),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    CONSTRAINT "refunds_payout_once_addressed" CHECK (("state" = 'PAYOUT') = ("payout_id" IS NOT NULL)),
    CONSTRAINT "refunds_addressed_with_payout" CHECK ("state" <> 'PAYOUT' OR "address" IS NOT NULL)
);
CREATE INDEX "refunds_invoice_id" ON "refunds"("invoice_id", "id");
CREATE INDEX "refunds_merchant_id" ON "refunds"("merchant_id", "id");
