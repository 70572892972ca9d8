-- Webhook fairness, the reserved senders (issue 27, finding 4; lib/webhooks/deliver.ts): a
-- merchant is served by the senders kept for fast receivers only once its receiver has proven
-- fast (`fast_streak` answers in a row under FAST_RECEIVER_MS), and not until `slow_until` after a
-- slow answer; a merchant with no row (a new sign-up) is not served by them at all.
ALTER TABLE webhook_receivers ADD COLUMN fast_streak integer NOT NULL DEFAULT 0;
ALTER TABLE webhook_receivers ADD COLUMN slow_until timestamptz(6);
-- Claimed by a reserved sender: at most one delivery of a merchant at a time.
ALTER TABLE webhook_deliveries ADD COLUMN reserved boolean NOT NULL DEFAULT false;
