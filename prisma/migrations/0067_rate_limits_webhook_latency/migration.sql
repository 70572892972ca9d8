-- Rate limits counted in PostgreSQL, shared by every web process on every host (issue 27,
-- finding 3; lib/rateLimit.ts): one row per limited key (API key's invoice creation, a client
-- address's public pages), holding the GCRA "theoretical arrival time" in microseconds of the
-- database's clock. A row whose time has passed is a full bucket and is deleted.
-- UNLOGGED: counters need no WAL; after a crash of the server the table is empty (every limit
-- starts over), which is harmless.
CREATE UNLOGGED TABLE rate_limits (
  key text PRIMARY KEY,
  tat_us bigint NOT NULL
);

-- Webhook fairness (issue 27, finding 4; lib/webhooks/deliver.ts): how long each merchant's
-- receiver took on its last finished delivery. The senders kept for fast receivers serve only
-- merchants under FAST_RECEIVER_MS, so accounts with slow receivers cannot occupy them.
CREATE TABLE webhook_receivers (
  merchant_id integer PRIMARY KEY REFERENCES merchants (id) ON DELETE CASCADE,
  last_latency_ms integer NOT NULL,
  updated_at timestamptz(6) NOT NULL DEFAULT now()
);
