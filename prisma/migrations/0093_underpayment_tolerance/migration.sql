-- A merchant's underpayment tolerance (issue 36): a SINGLE invoice paid within this share of its
-- amount short of it is COMPLETED, as a customer whose exchange took its withdrawal fee out of the
-- payment expects. 0 (the default) keeps the service's own band (PAYMENT_TOLERANCE_*). Copied onto
-- each invoice at its creation, so a later change never turns an invoice's status around, and
-- `npm run reconcile` judges each invoice by the tolerance it was created with.
ALTER TABLE "merchants" ADD COLUMN "underpayment_tolerance_percent" DECIMAL(5, 2) NOT NULL DEFAULT 0;
ALTER TABLE "invoices" ADD COLUMN "underpayment_tolerance_percent" DECIMAL(5, 2) NOT NULL DEFAULT 0;
