CREATE TYPE "InvoiceType" AS ENUM ('SINGLE', 'MULTIPLE', 'MULTIPLE_TRANSFER');
CREATE TYPE "InvoiceStatus" AS ENUM ('ACTIVE', 'COMPLETED', 'CANCELED', 'TIMEOUT', 'ERROR', 'AML_FAILED', 'OVERPAID', 'UNDERPAID');
CREATE TYPE "Currency" AS ENUM ('TRX', 'USDT');

CREATE TABLE "merchants" (
  "id" SERIAL PRIMARY KEY,
  "email" TEXT NOT NULL UNIQUE,
  "password_hash" TEXT,
  "target_wallet_address" TEXT,
  "topup_wallet_address" TEXT NOT NULL UNIQUE,
  "activation_wallet_address" TEXT NOT NULL UNIQUE,
  "webhook_url" TEXT,
  "webhook_secret_enc" TEXT NOT NULL,
  "aml_check" BOOLEAN NOT NULL DEFAULT false,
  "aml_risk_limit" DECIMAL(6,2) NOT NULL DEFAULT 70,
  "balance_sun" BIGINT NOT NULL DEFAULT 0,
  "activation_balance_sun" BIGINT NOT NULL DEFAULT 0,
  "ip_whitelist" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  "next_address_index" INTEGER NOT NULL DEFAULT 0,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE "api_keys" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id") ON DELETE CASCADE,
  "label" TEXT NOT NULL,
  "prefix" TEXT NOT NULL,
  "key_hash" TEXT NOT NULL UNIQUE,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "last_used_at" TIMESTAMPTZ(6),
  "revoked_at" TIMESTAMPTZ(6)
);
CREATE INDEX "api_keys_merchant_id_idx" ON "api_keys"("merchant_id");

CREATE TABLE "invoices" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id"),
  "type" "InvoiceType" NOT NULL,
  "status" "InvoiceStatus" NOT NULL DEFAULT 'ACTIVE',
  "amount_usd" DECIMAL(24,6),
  "currencies" "Currency"[] NOT NULL,
  "order_id" VARCHAR(256),
  "address" TEXT NOT NULL UNIQUE,
  "address_index" INTEGER NOT NULL,
  "private_key_enc" TEXT NOT NULL,
  "client_commission" BOOLEAN NOT NULL DEFAULT false,
  "webhook_url" TEXT,
  "redirect_url" TEXT,
  "description" TEXT,
  "target_wallets" JSONB,
  "cost_units" BIGINT,
  "cost_currency" "Currency",
  "expired_at" TIMESTAMPTZ(6) NOT NULL,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE ("merchant_id", "address_index")
);
CREATE INDEX "invoices_merchant_id_created_at_idx" ON "invoices"("merchant_id", "created_at");
CREATE INDEX "invoices_merchant_id_status_idx" ON "invoices"("merchant_id", "status");

CREATE TABLE "invoice_currencies" (
  "invoice_id" INTEGER NOT NULL REFERENCES "invoices"("id") ON DELETE CASCADE,
  "currency" "Currency" NOT NULL,
  "rate_usd" DECIMAL(30,12) NOT NULL,
  "due_units" BIGINT NOT NULL,
  "fee_units" BIGINT NOT NULL,
  "received_units" BIGINT NOT NULL DEFAULT 0,
  "forwarded_units" BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY ("invoice_id", "currency")
);
