-- Money held for a merchant is never silent (issue 26): the moment the worker holds a payment
-- (lib/payments/states.ts, lib/notify/held.ts) the merchant gets an e-mail where SMTP is
-- configured and, when they opted in, a signed webhook event.

-- The opt-in for the "payment.held" webhook event. Off by default: a client written against the
-- spec receives only the invoice statuses of spec 6.
ALTER TABLE "merchants" ADD COLUMN "webhook_held_events" BOOLEAN NOT NULL DEFAULT false;

-- E-mails to send, written in the same database transaction as what they report (as the webhook
-- outbox is), so a hold that commits is always told and one that rolls back never is; the worker
-- sends them (lib/notify/outbox.ts), retrying a refusal a few times.
CREATE TYPE "MailStatus" AS ENUM ('PENDING', 'SENDING', 'SENT', 'FAILED');

CREATE TABLE "mail_outbox" (
  "id" SERIAL PRIMARY KEY,
  "merchant_id" INTEGER NOT NULL REFERENCES "merchants" ("id") ON DELETE CASCADE,
  -- What the mail reports, once: "payment:<transaction id>:held:<n>".
  "event_key" TEXT NOT NULL,
  "to_address" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "body" TEXT NOT NULL,
  "status" "MailStatus" NOT NULL DEFAULT 'PENDING',
  "attempts" INTEGER NOT NULL DEFAULT 0,
  "not_before" TIMESTAMPTZ(6),
  "claimed_at" TIMESTAMPTZ(6),
  "sent_at" TIMESTAMPTZ(6),
  "error" TEXT,
  "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "mail_outbox_event_key_key" ON "mail_outbox" ("event_key");
CREATE INDEX "mail_outbox_status_id_idx" ON "mail_outbox" ("status", "id");
CREATE INDEX "mail_outbox_merchant_id_idx" ON "mail_outbox" ("merchant_id");
