ALTER TYPE "PaymentState" ADD VALUE 'FAILED';

-- A claim on a row by one worker process, so two workers never advance one payment at once.
ALTER TABLE "transactions" ADD COLUMN "lease_owner" TEXT;
ALTER TABLE "transactions" ADD COLUMN "lease_until" TIMESTAMPTZ(6);
-- `<payment id>:<purpose>:<attempt>`: at most one send per step and attempt, whoever builds it.
ALTER TABLE "transactions" ADD COLUMN "send_key" TEXT UNIQUE;
-- The incoming payment a send was made for.
ALTER TABLE "transactions" ADD COLUMN "source_id" INTEGER REFERENCES "transactions"("id");
-- What the payment was worth to the merchant after the service fee, and that fee, in the payment's token.
ALTER TABLE "transactions" ADD COLUMN "fee_units" BIGINT;
CREATE INDEX "transactions_source_id_idx" ON "transactions"("source_id");
