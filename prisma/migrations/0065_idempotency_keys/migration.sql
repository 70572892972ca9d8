-- Idempotent creation (issue 26): a client that sends `Idempotency-Key` on POST /payment/create or
-- /payment/multiple_transfer/create and repeats the request (its answer was lost) gets the first
-- answer again, for 24 hours, instead of a second invoice or payout. One row per key and merchant:
-- the unique key is what lets only one of several concurrent duplicates run. A row without a
-- response_status is a request still running (or one that died mid-way; see docs/api.md).
CREATE TABLE "idempotency_keys" (
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants"("id") ON DELETE CASCADE,
  "key" VARCHAR(255) NOT NULL,
  -- SHA-256 of the method, path and canonical JSON body: the same key with another request is refused.
  "request_hash" VARCHAR(64) NOT NULL,
  "response_status" INTEGER,
  "response_body" TEXT,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
  "completed_at" TIMESTAMPTZ(6),
  CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("merchant_id", "key")
);

-- Keys older than 24 hours are dropped as new ones are claimed, oldest first.
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");
