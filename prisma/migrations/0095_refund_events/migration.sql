-- Opt-in refund webhooks (issue 36, docs/webhooks.md): refund.created, refund.claimed, refund.sent,
-- refund.failed. Off by default, so a spec client sees only spec 6's invoice statuses.
ALTER TABLE "merchants" ADD COLUMN "webhook_refund_events" BOOLEAN NOT NULL DEFAULT false;
-- The outcome the worker has told the merchant of (SENT, FAILED or CANCELED: the refund's status read
-- from its payout, lib/refunds/view.ts), written with the event in one transaction: told once.
ALTER TABLE "refunds" ADD COLUMN "outcome_told" TEXT;
CREATE INDEX "refunds_outcome_untold" ON "refunds"("id") WHERE "state" = 'PAYOUT' AND "outcome_told" IS NULL;
