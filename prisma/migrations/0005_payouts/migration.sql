-- Mass payouts (MULTIPLE_TRANSFER): a worker claims a payout invoice the way it claims a
-- payment (lease + SKIP LOCKED), so two workers never drive one payout at once.
ALTER TABLE "invoices" ADD COLUMN "lease_owner" TEXT;
ALTER TABLE "invoices" ADD COLUMN "lease_until" TIMESTAMPTZ(6);
-- Targets whose send failed for good: [{index, address, amount, error}]; null until the payout ends.
ALTER TABLE "invoices" ADD COLUMN "failed_targets" JSONB;
-- The payout loop only ever looks at open payouts.
CREATE INDEX "invoices_open_payouts_idx" ON "invoices"("id") WHERE "type" = 'MULTIPLE_TRANSFER' AND "status" = 'ACTIVE';
