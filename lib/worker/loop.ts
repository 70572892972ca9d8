import { backoffMs } from '@/lib/backoff';
import type { WorkerContext } from './context';
import type { WorkerJob } from './job';
import { LeaderLease } from './leader';
import { type IdleTurns, Wakeup, workerWakeup } from './wake';

const MAX_BACKOFF_MS = 30_000;
/**
 * When the database or the node goes away, every job of every worker fails within one poll and
 * would retry in step, each time; up to half of each wait is taken off at random to spread them.
 */
const BACKOFF_JITTER = 0.5;

export interface Loop {
  stop(): Promise<void>;
}

/**
 * Runs `step` forever: again at once while it reports work done (waking the process's other jobs
 * when the step changed a state, lib/worker/wake.ts), after `idleMs` when idle or sooner when
 * woken, and with doubling backoff from `idleMs` (to 30 s, also for a job idle longer; each wait
 * shortened by up to half at random; not cut short by wakes) while it throws, e.g. while the
 * node or the database is unreachable. With `turns`, idle in turn with the loops that share them.
 */
export function startLoop(name: string, idleMs: number, step: () => Promise<boolean>, wakeup: Wakeup = new Wakeup(), turns?: IdleTurns): Loop {
  let stopping = false;
  let stopBackoff: (() => void) | undefined;
  const state = wakeup.join();
  // No sleep starts once stopping: a stop that came while a step ran found nothing to wake, and
  // the job's idle sleep after that step (the accounts job's: 60 s) held the worker's exit.
  // A woken sleep clears its timer, so a stopped loop holds the process by nothing.
  const backoff = (ms: number) =>
    stopping
      ? Promise.resolve()
      : new Promise<void>((r) => {
          const timer = setTimeout(r, ms);
          stopBackoff = () => {
            clearTimeout(timer);
            r();
          };
        });
  const done = (async () => {
    let failures = 0;
    while (!stopping) {
      const generation = state.generation;
      try {
        const { worked, progressed } = await wakeup.step(state, step);
        failures = 0;
        if (progressed) wakeup.wake();
        if (!worked && !stopping) await wakeup.sleep(state, idleMs, generation, turns);
      } catch (err) {
        const wait = backoffMs({ baseMs: idleMs, capMs: MAX_BACKOFF_MS, jitter: BACKOFF_JITTER }, failures++);
        console.error(`worker ${name}: ${(err as Error).message}; retrying in ${wait} ms`);
        await backoff(wait);
      }
    }
  })();
  return {
    async stop() {
      stopping = true;
      stopBackoff?.();
      // Ends this loop's idle sleep and pending wakes.
      wakeup.leave(state);
      await done;
    },
  };
}

/**
 * Runs one worker job in its loop (worker/main.ts): a singleton job only while this worker holds
 * its leader lease, which a clean stop gives up so another worker takes over at once; a clean
 * stop also waits for work the job let go on (`settle`).
 */
export function startJob(ctx: Pick<WorkerContext, 'prisma' | 'owner' | 'settings'>, job: WorkerJob, wakeup: Wakeup = workerWakeup()): Loop {
  const idleMs = job.idleMs ?? ctx.settings.WORKER_IDLE_MS ?? ctx.settings.WORKER_POLL_MS;
  const lease = job.singleton ? new LeaderLease(ctx.prisma, job.name, ctx.owner, ctx.settings.LEADER_LEASE_SECONDS) : null;
  const loop = startLoop(job.name, idleMs, lease ? () => lease.run(() => job.step()) : () => job.step(), wakeup, job.idleTurns);
  return {
    async stop() {
      await loop.stop();
      await job.settle?.();
      await lease?.release().catch((err: unknown) => console.error(`worker: giving up the lease of ${job.name}: ${(err as Error).message}`));
    },
  };
}
