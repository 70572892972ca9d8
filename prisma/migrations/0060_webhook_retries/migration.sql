-- Webhook retries a merchant can turn on (issue 26). Off by default: spec 6 says a webhook is
-- sent once, and existing clients rely on that.
ALTER TABLE "merchants" ADD COLUMN "webhook_retries" BOOLEAN NOT NULL DEFAULT false;

-- A retry is a new outbox row, so every attempt stays in the delivery log with its response.
-- retry_of_id names the chain's first attempt (its event and its three-day window);
-- not_before holds the row back until its backoff has passed.
ALTER TABLE "webhook_deliveries"
  ADD COLUMN "retry_of_id" INTEGER REFERENCES "webhook_deliveries"("id"),
  ADD COLUMN "attempt" INTEGER NOT NULL DEFAULT 1,
  ADD COLUMN "not_before" TIMESTAMPTZ(6);
