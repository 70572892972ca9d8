import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitRequest, DEFAULT_THROTTLE_MS, endpointOf, throttleWaitMs } from '@/lib/chain/meter';

describe("the node provider's budget (lib/chain/meter.ts, issue 37)", () => {
  const now = Date.parse('2026-11-29T12:00:00Z');

  it('reads the wait a refusal names: Retry-After in seconds or as a date, else TronGrid\'s "suspended for Ns", else a block for a bare 429', () => {
    assert.equal(throttleWaitMs(429, '7', undefined, now), 7_000);
    assert.equal(throttleWaitMs(429, new Date(now + 12_000).toUTCString(), undefined, now), 12_000);
    const tronGrid = { Error: 'The key exceeds the frequency limit(30), and the query server is suspended for 30s' };
    assert.equal(throttleWaitMs(403, undefined, tronGrid, now), 30_000);
    assert.equal(throttleWaitMs(503, undefined, JSON.stringify(tronGrid), now), 30_000);
    assert.equal(throttleWaitMs(429, undefined, '', now), DEFAULT_THROTTLE_MS);
  });

  it('takes a 403 or 503 that names no wait, and any other status, for what it is: not a rate limit', () => {
    assert.equal(throttleWaitMs(503, undefined, 'Service Unavailable', now), null);
    assert.equal(throttleWaitMs(403, undefined, { Error: 'forbidden' }, now), null);
    assert.equal(throttleWaitMs(500, '5', undefined, now), null);
    assert.equal(throttleWaitMs(undefined, undefined, undefined, now), null);
  });

  it('spaces requests under a per-second budget, each origin on its own, and counts each by endpoint', () => {
    const origin = `http://budget-${Math.random()}.test`;
    assert.deepEqual([0, 1, 2, 3].map(() => admitRequest(origin, 'wallet/getblock', 4, now)), [0, 250, 500, 750]);
    assert.equal(admitRequest(`${origin}.other`, 'wallet/getblock', 4, now), 0, 'another node has its own budget');
    assert.equal(admitRequest(origin, 'wallet/getblock', 4, now + 2_000), 0, 'a slot in the past is now');
    assert.equal(admitRequest(origin, 'wallet/getblock', null, now), 0, 'no budget: never waits');
  });

  it('names an endpoint as the node serves it', () => {
    assert.equal(endpointOf('/wallet/getnowblock'), 'wallet/getnowblock');
    assert.equal(endpointOf('walletsolidity/getaccount?visible=true'), 'walletsolidity/getaccount');
    assert.equal(endpointOf('http://127.0.0.1:9090/wallet/getblock/'), 'wallet/getblock');
  });
});
