-- Singleton worker jobs (issue 27; lib/worker/leader.ts): a job that must run on one worker at a
-- time (the scanner, the energy pool's upkeep) runs only on the worker that holds its row here.
-- The holder renews `lease_until` (the database's clock) every few seconds; when it dies the
-- lease runs out after LEADER_LEASE_SECONDS and another worker takes the row over. `since` is
-- when the current holder took it.
CREATE TABLE job_leases (
  job text PRIMARY KEY,
  owner text NOT NULL,
  lease_until timestamptz(6) NOT NULL,
  since timestamptz(6) NOT NULL DEFAULT now()
);
