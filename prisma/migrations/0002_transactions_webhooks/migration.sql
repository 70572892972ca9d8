CREATE TYPE "TransactionType" AS ENUM ('PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION');
CREATE TYPE "PaymentState" AS ENUM ('DETECTED', 'AML_PENDING', 'FORWARDING', 'SETTLED', 'REFUNDING', 'REFUNDED');
CREATE TYPE "SendState" AS ENUM ('SIGNED', 'BROADCAST', 'CONFIRMED', 'FAILED');
CREATE TYPE "DeliveryStatus" AS ENUM ('PENDING', 'SENDING', 'DELIVERED', 'FAILED');

CREATE TABLE "transactions" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id"),
  "invoice_id" INTEGER REFERENCES "invoices"("id"),
  "type" "TransactionType" NOT NULL,
  "trn_hash" TEXT NOT NULL,
  "chain_ref" TEXT NOT NULL UNIQUE,
  "from_address" TEXT NOT NULL,
  "to_address" TEXT NOT NULL,
  "amount_units" BIGINT NOT NULL,
  "currency" "Currency" NOT NULL,
  "aml_check" JSONB,
  "event_id" UUID,
  "block_number" INTEGER,
  "payment_state" "PaymentState",
  "send_state" "SendState",
  "signed_tx" JSONB,
  "expires_at" TIMESTAMPTZ(6),
  "fee_sun" BIGINT,
  "error" TEXT,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "transactions_merchant_id_created_at_idx" ON "transactions"("merchant_id", "created_at");
CREATE INDEX "transactions_invoice_id_idx" ON "transactions"("invoice_id");
CREATE INDEX "transactions_trn_hash_idx" ON "transactions"("trn_hash");
CREATE INDEX "transactions_event_id_idx" ON "transactions"("event_id");
CREATE INDEX "transactions_payment_state_idx" ON "transactions"("payment_state");
CREATE INDEX "transactions_send_state_idx" ON "transactions"("send_state");

CREATE TABLE "webhook_deliveries" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id"),
  "invoice_id" INTEGER NOT NULL REFERENCES "invoices"("id"),
  "event_key" TEXT NOT NULL UNIQUE,
  "url" TEXT NOT NULL,
  "payload" JSONB NOT NULL,
  "status" "DeliveryStatus" NOT NULL DEFAULT 'PENDING',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "response_status" INTEGER,
  "latency_ms" INTEGER,
  "error" TEXT,
  "resend_of_id" INTEGER,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "sent_at" TIMESTAMPTZ(6)
);
CREATE INDEX "webhook_deliveries_status_created_at_idx" ON "webhook_deliveries"("status", "created_at");
CREATE INDEX "webhook_deliveries_merchant_id_created_at_idx" ON "webhook_deliveries"("merchant_id", "created_at");
CREATE INDEX "webhook_deliveries_invoice_id_idx" ON "webhook_deliveries"("invoice_id");

CREATE TABLE "chain_cursors" (
  "name" TEXT PRIMARY KEY,
  "block_number" INTEGER NOT NULL,
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
