import type { WorkerContext } from './context';
import type { IdleTurns } from './wake';

/**
 * One background job of the worker: a file under `worker/` (docs/worker.md, "Jobs").
 * `step` runs one round and says whether it did work: the loop (lib/worker/loop.ts) then runs
 * it again at once, otherwise after `idleMs` (default WORKER_POLL_MS), and with doubling
 * backoff while it throws. A job holds no rules: it calls one domain function in `lib/`.
 */
export interface WorkerJob {
  /** Also the key of its leader lease when `singleton`: two jobs never share a name. */
  name: string;
  idleMs?: number;
  /**
   * Runs on one worker at a time, however many workers share the database: the one holding the
   * job's leader lease (lib/worker/leader.ts); another takes it over when that worker dies. For
   * jobs that read and then act on something all workers share (the chain cursor, the energy
   * pool's stake); jobs that claim rows with `lib/worker/lease.ts` split their work instead.
   */
  singleton?: true;
  /** Shared by jobs that do the same work side by side: while idle they look in turn (lib/worker/wake.ts). */
  idleTurns?: IdleTurns;
  step(): Promise<boolean>;
  /** Waits, at a clean stop, for work a step let go on without it (a reserved webhook sender's slow request). */
  settle?(): Promise<void>;
}

/** What a job is made from: the shared worker context, and the few things only the worker process holds. */
export interface JobDeps {
  ctx: WorkerContext;
  /** The HD mnemonic: the worker signs (the web does not hold it). */
  mnemonic: string;
}
