-- The open invoices by deadline (issue 37's review): the expiry job (lib/payments/expiry.ts) and the
-- idle scanner's check whether a deadline awaits the solidified chain (`finalityAwaited`,
-- lib/payments/scan.ts, every block) both ask for ACTIVE invoices past `expired_at`. Without it
-- they walked every invoice of the status through (merchant_id, status, id): 24-70 ms a check at
-- 1,000,000 invoices (5,000 ACTIVE), 0.03-0.1 ms with it (docs/performance.md).
CREATE INDEX "invoices_active_expiry_idx" ON "invoices"("expired_at") WHERE "status" = 'ACTIVE';
