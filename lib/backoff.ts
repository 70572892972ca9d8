/**
 * The one doubling backoff of the service (issue 39): the worker's loops, a payment's and a send's
 * retries, webhook and mail retries, the supervisor's restarts and the sign-in slowdown all wait
 * `backoffMs(...)`, each stating its own numbers. A new doubling is written here, not by hand
 * (test/unit/architecture.test.ts, rule (m)).
 */
export interface Backoff {
  /** The wait before the first retry (retry 0), in ms; each next one doubles... */
  baseMs: number;
  /** ... up to this, in ms. */
  capMs: number;
  /**
   * The share of each wait that is drawn at random, from 0 to 1: the wait is between
   * `(1 - jitter)` times the doubled wait and the doubled wait itself, never longer. 0 for a
   * schedule a merchant or an operator reads (every caller waits exactly the same); more where many
   * callers fail at the same moment and would otherwise retry together (a database that goes away).
   */
  jitter: number;
}

/** A number in [0, 1), as `Math.random` gives; the tests pass fixed ones. */
export type RandomSource = () => number;

// 2 ** 1024 is Infinity, and 0 × Infinity is NaN: past this many doublings any base has met any cap.
const MAX_DOUBLINGS = 1000;

/**
 * The wait before retry number `retry` (0 for the first; a negative count is the first): `baseMs`
 * doubled `retry` times, at most `capMs`, less a random share of at most `jitter` of it, rounded
 * down to a whole millisecond.
 */
export function backoffMs({ baseMs, capMs, jitter }: Backoff, retry: number, random: RandomSource = Math.random): number {
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`backoff jitter ${jitter} is not between 0 and 1`);
  const doubled = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(retry, 0), MAX_DOUBLINGS));
  return jitter === 0 ? doubled : doubled - Math.ceil(doubled * jitter * random());
}
