import { backoffMs } from '@/lib/backoff';
import { cell } from '@/lib/singletons';

/**
 * Supervision (issue 27, finding 1): the runner (scripts/run.ts) restarts a web, worker or devnet
 * process that dies unasked, and the web server's cluster primary (server.ts) restarts a dead web
 * process, each with backoff, while the others keep serving. What they restarted is counted here
 * and shown by /healthz and /metrics.
 *
 * The counts travel by IPC: runner → web primary → each web process, as one message
 * (`RestartsMessage`). They are kept in lib/singletons.ts, not in a module variable, because the
 * route handlers Next compiled hold their own copy of this module, apart from server.ts's.
 */

export const PROCESS_KINDS = ['web', 'worker', 'devnet'] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];
export type RestartCounts = Record<ProcessKind, number>;

export interface RestartsMessage {
  type: 'invoicing:restarts';
  counts: RestartCounts;
}

/**
 * Sent up by a web process once it listens for `RestartsMessage`s: a message sent before that
 * (at spawn) would be lost, so the counts are sent in answer to this.
 */
export const RESTARTS_WANTED = { type: 'invoicing:restarts-wanted' } as const;

export function isRestartsWanted(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === RESTARTS_WANTED.type;
}

export const zeroCounts = (): RestartCounts => ({ web: 0, worker: 0, devnet: 0 });

/** Restarts of each kind of process since the runner started (zeros outside a supervised run). */
export function restartCounts(): RestartCounts {
  return { ...(cell('restartCounts').value ?? zeroCounts()) };
}

export function setRestartCounts(counts: RestartCounts): void {
  cell('restartCounts').value = { ...counts };
}

export function restartsMessage(counts: RestartCounts): RestartsMessage {
  return { type: 'invoicing:restarts', counts };
}

export function isRestartsMessage(message: unknown): message is RestartsMessage {
  if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'invoicing:restarts') return false;
  const counts = (message as { counts?: unknown }).counts;
  return typeof counts === 'object' && counts !== null && PROCESS_KINDS.every((k) => Number.isSafeInteger((counts as Record<string, unknown>)[k]));
}

/** Adds two sets of counts (the runner's and the web primary's own web restarts). */
export function addCounts(a: RestartCounts, b: RestartCounts): RestartCounts {
  return { web: a.web + b.web, worker: a.worker + b.worker, devnet: a.devnet + b.devnet };
}

export interface BackoffOptions {
  /** The wait before the first restart... */
  firstMs: number;
  /** ... doubling with each quick death up to this... */
  maxMs: number;
  /** ... and back to the first once a process stayed up this long: a crash a day is not a crash loop. */
  resetAfterMs: number;
}

export const RESTART_BACKOFF: BackoffOptions = { firstMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };

/**
 * The wait before restarting one supervised process. A process that keeps dying at start (a
 * bad setting, a database that is down) is retried more and more slowly instead of spinning;
 * one that ran a minute before dying is restarted at once, almost. No jitter: each supervisor
 * restarts its own one process.
 */
export class RestartBackoff {
  /** Restarts since the last process that stayed up `resetAfterMs`. */
  private quickDeaths = 0;

  constructor(private readonly options: BackoffOptions = RESTART_BACKOFF) {}

  /** The wait before restarting a process that died after being up `upMs`. */
  delayAfter(upMs: number): number {
    if (upMs >= this.options.resetAfterMs) this.quickDeaths = 0;
    return backoffMs({ baseMs: this.options.firstMs, capMs: this.options.maxMs, jitter: 0 }, this.quickDeaths++);
  }
}
