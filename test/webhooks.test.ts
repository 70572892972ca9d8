import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DestinationRefusedError, isPrivateAddress, resolveDestination } from '@/lib/webhooks/destination';
import { signWebhook, verifyWebhook } from '@/lib/webhooks/signature';

describe('webhook destinations', () => {
  it('knows private, loopback, link-local and mapped addresses', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1']) {
      assert.ok(isPrivateAddress(ip), ip);
    }
    for (const ip of ['8.8.8.8', '203.0.113.10', '2001:4860:4860::8888']) assert.ok(!isPrivateAddress(ip), ip);
  });

  it('refuses private destinations unless allowed, and non-http schemes always', async () => {
    await assert.rejects(resolveDestination(new URL('http://127.0.0.1:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://localhost:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('http://[::1]:9/x'), false), DestinationRefusedError);
    await assert.rejects(resolveDestination(new URL('ftp://8.8.8.8/x'), true), DestinationRefusedError);
    assert.deepEqual(await resolveDestination(new URL('http://127.0.0.1:9/x'), true), { address: '127.0.0.1', family: 4 });
    assert.deepEqual(await resolveDestination(new URL('https://203.0.113.10/x'), false), { address: '203.0.113.10', family: 4 });
  });
});

describe('webhook signatures', () => {
  const body = '{"id":1,"status":"COMPLETED"}';
  it('verifies its own signature and refuses tampering, other secrets and stale timestamps', () => {
    const now = Date.now();
    const header = signWebhook('s3cret', body, Math.floor(now / 1000));
    assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.ok(verifyWebhook('s3cret', body, header, 300, now));
    assert.ok(!verifyWebhook('s3cret', body.replace('1', '2'), header, 300, now));
    assert.ok(!verifyWebhook('other', body, header, 300, now));
    assert.ok(!verifyWebhook('s3cret', body, header, 300, now + 301_000));
    assert.ok(!verifyWebhook('s3cret', body, 'garbage', 300, now));
  });
});
