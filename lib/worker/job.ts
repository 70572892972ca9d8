import type { WorkerContext } from './context';

/**
 * One background job of the worker: a file under `worker/` (docs/worker.md, "Jobs").
 * `step` runs one round and says whether it did work: the loop (lib/worker/loop.ts) then runs
 * it again at once, otherwise after `idleMs` (default WORKER_POLL_MS), and with doubling
 * backoff while it throws. A job holds no rules: it calls one domain function in `lib/`.
 */
export interface WorkerJob {
  name: string;
  idleMs?: number;
  step(): Promise<boolean>;
}

/** What a job is made from: the shared worker context, and the few things only the worker process holds. */
export interface JobDeps {
  ctx: WorkerContext;
  /** The HD mnemonic: the worker signs (the web does not hold it). */
  mnemonic: string;
}
