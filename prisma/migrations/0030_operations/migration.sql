-- One row per worker process, written by its scan loop (lib/operations/heartbeat.ts).
-- /healthz reads the newest: a worker that stopped scanning is a failed service,
-- even while the web process answers. started_at tells restarts apart.
CREATE TABLE "worker_heartbeats" (
    "owner" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    "scanned_at" TIMESTAMPTZ(6) NOT NULL,
    CONSTRAINT "worker_heartbeats_pkey" PRIMARY KEY ("owner")
);

CREATE INDEX "worker_heartbeats_scanned_at_idx" ON "worker_heartbeats" ("scanned_at");
