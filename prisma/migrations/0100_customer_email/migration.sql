-- The customer's e-mail for a receipt and a refund's claim link (issue 36), given on the payment
-- page, optional; used only where SMTP is configured (lib/notify/customer.ts).
ALTER TABLE "invoices" ADD COLUMN "customer_email" TEXT;
