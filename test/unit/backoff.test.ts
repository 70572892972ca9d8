/**
 * The one doubling backoff (lib/backoff.ts, issue 39), on fixed numbers and a fixed random source:
 * no timer runs here. Its callers' schedules are pinned where they are used (test/run/supervision.test.ts
 * for restarts, test/chain/webhook-retries.test.ts for webhooks) and, for the sign-in slowdown, below.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, type Backoff } from '@/lib/backoff';
import { accountSlowdownMs, MAX_FAILED_SIGN_INS } from '@/lib/auth/signInThrottle';

const FIXED: Backoff = { baseMs: 500, capMs: 30_000, jitter: 0 };
const never = () => assert.fail('no jitter asked for: the random source is not read');
/** A random source that gives `values` in turn. */
const sequence = (...values: number[]) => () => {
  const v = values.shift();
  assert.ok(v !== undefined, 'read more often than expected');
  return v;
};

describe('backoffMs: one doubling wait, each caller with its own numbers', () => {
  it('waits the base before the first retry and doubles it with each next one', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((retry) => backoffMs(FIXED, retry, never)), [500, 1000, 2000, 4000, 8000, 16000]);
  });

  it('never waits longer than the cap, however many retries came before', () => {
    assert.deepEqual([6, 7, 50, 1023, 1024, 100_000].map((retry) => backoffMs(FIXED, retry, never)), [30_000, 30_000, 30_000, 30_000, 30_000, 30_000]);
    assert.equal(backoffMs({ baseMs: 0, capMs: 30_000, jitter: 0 }, 5_000, never), 0, 'a zero base stays zero, not NaN');
  });

  it('counts a negative retry as the first', () => {
    assert.equal(backoffMs(FIXED, -1, never), 500);
  });

  it('without jitter waits the same for every caller and never reads the random source', () => {
    assert.equal(backoffMs(FIXED, 3, never), backoffMs(FIXED, 3, never));
  });

  it('with jitter takes a random share of at most `jitter` off the doubled wait, never adding to it', () => {
    const half: Backoff = { ...FIXED, jitter: 0.5 };
    assert.equal(backoffMs(half, 2, sequence(0)), 2000, 'the random source at 0: the whole wait');
    assert.equal(backoffMs(half, 2, sequence(0.5)), 1500, 'half of the at most half taken off');
    assert.equal(backoffMs(half, 2, sequence(0.999_999)), 1000, 'never below (1 - jitter) of the wait');
    assert.equal(backoffMs(half, 40, sequence(0.5)), 22_500, 'jitter shortens the capped wait');
    assert.equal(backoffMs({ ...FIXED, jitter: 1 }, 0, sequence(0.999_999)), 0, 'full jitter may retry at once');
  });

  it('with jitter waits whole milliseconds', () => {
    assert.equal(backoffMs({ baseMs: 1000, capMs: 30_000, jitter: 0.3 }, 0, sequence(0.123_456_7)), 962);
    assert.ok(Number.isInteger(backoffMs({ baseMs: 333, capMs: 30_000, jitter: 0.7 }, 3, Math.random)));
  });

  it('refuses a jitter outside 0 to 1', () => {
    for (const jitter of [-0.1, 1.5, Number.NaN]) assert.throws(() => backoffMs({ ...FIXED, jitter }, 0), RangeError);
  });
});

describe('the callers keep their schedules', () => {
  it('the sign-in slowdown: nothing for the first few failures, then 250 ms doubling to 8 s', () => {
    const waits = Array.from({ length: 12 }, (_, i) => accountSlowdownMs(MAX_FAILED_SIGN_INS - 2 + i));
    assert.deepEqual(waits, [0, 0, 250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000, 8000]);
    assert.equal(accountSlowdownMs(10_000), 8000);
  });
});
