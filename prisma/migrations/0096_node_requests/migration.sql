-- Each worker's requests to the Tron node since it started, by endpoint, and the answers that
-- throttled it (issue 37, lib/chain/meter.ts): written with its heartbeat, shown by /metrics so an
-- operator sees what the node provider's quota is spent on.
ALTER TABLE "worker_heartbeats" ADD COLUMN "node_requests" JSONB;
