import { singleton } from '@/lib/singletons';

/**
 * Every request this process sends to a Tron node, counted by endpoint, and the node provider's
 * limits kept (issue 37; docs/chain.md, "The node provider's budget"). TronGrid gives a key a daily
 * quota and a per-second rate, answers 429 (or 403, 503) past them with `{"Error": "The key exceeds
 * the frequency limit(30), and the query server is suspended for 30s"}`, and keeps refusing during
 * that penalty: a client that asks again at once only stays suspended. So after such an answer no
 * request goes to that node until the wait it named is over (Retry-After, else the "suspended for
 * Ns" of the body, else a block's time for a bare 429); meanwhile every call fails at once with
 * ChainUnavailableError, which the worker's loops already wait out. With a per-second budget set
 * (TRON_MAX_REQUESTS_PER_SECOND), requests are spaced to stay under it, in this process.
 *
 * The state is the process's (lib/singletons.ts): every chain client of every copy of lib/ in it
 * talks to the same provider under the same key.
 */
export interface NodeRequestState {
  /** Requests sent, by endpoint (`wallet/getblockbynum`, `walletsolidity/getaccount`, ...). */
  counts: Map<string, number>;
  /** Answers that throttled us (429, or 403/503 naming a suspension). */
  throttled: number;
  /** Per node origin: no request before this time (ms since epoch). */
  pausedUntil: Map<string, number>;
  /** Per node origin: when the next request may go under the per-second budget. */
  nextSlotAt: Map<string, number>;
}

export function nodeRequestState(): NodeRequestState {
  return singleton('nodeRequests', () => ({ counts: new Map(), throttled: 0, pausedUntil: new Map(), nextSlotAt: new Map() }));
}

/** `/wallet/getnowblock?x=1` → `wallet/getnowblock`. */
export function endpointOf(url: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, '').split('?')[0]!;
  return path.replace(/^\/+/, '').replace(/\/+$/, '') || '/';
}

/** A wait a bare 429 imposes when the node names none: one mainnet block. */
export const DEFAULT_THROTTLE_MS = 3_000;

/**
 * How long a node's refusal asks us to wait (ms), or null when the answer is no throttling: 429
 * always is; 403 and 503 only when they say so (Retry-After, or TronGrid's "suspended for Ns"), as a
 * 503 is also a node that is simply down.
 */
export function throttleWaitMs(status: number | undefined, retryAfter: string | undefined, body: unknown, now: number): number | null {
  if (status !== 429 && status !== 403 && status !== 503) return null;
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  const suspended = /suspended for (\d+)\s*s/i.exec(text);
  if (suspended) return Number(suspended[1]) * 1000;
  return status === 429 ? DEFAULT_THROTTLE_MS : null;
}

/** Counts a request about to go to `origin`'s `endpoint`; the time to wait first under the per-second budget (0: none). */
export function admitRequest(origin: string, endpoint: string, maxPerSecond: number | null, now: number): number {
  const state = nodeRequestState();
  state.counts.set(endpoint, (state.counts.get(endpoint) ?? 0) + 1);
  if (!maxPerSecond) return 0;
  // GCRA: each request takes the next slot of 1/maxPerSecond s; a slot in the past is now.
  const at = Math.max(now, state.nextSlotAt.get(origin) ?? 0);
  state.nextSlotAt.set(origin, at + 1000 / maxPerSecond);
  return at - now;
}

/** Until when `origin` asked us not to call it (ms since epoch), if that is still ahead. */
export function pausedUntil(origin: string, now: number): number | null {
  const until = nodeRequestState().pausedUntil.get(origin);
  return until !== undefined && until > now ? until : null;
}

/** Records a throttling answer of `origin`: no request to it for `waitMs`. */
export function notePaused(origin: string, waitMs: number, now: number): void {
  const state = nodeRequestState();
  state.throttled++;
  state.pausedUntil.set(origin, Math.max(state.pausedUntil.get(origin) ?? 0, now + waitMs));
}

/** The counts so far, by endpoint, for a heartbeat or /metrics. */
export function nodeRequestCounts(): { requests: Record<string, number>; throttled: number } {
  const state = nodeRequestState();
  return { requests: Object.fromEntries([...state.counts].sort(([a], [b]) => a.localeCompare(b))), throttled: state.throttled };
}
