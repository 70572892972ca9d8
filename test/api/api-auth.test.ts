import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { startApp, type TestApp } from '../helpers/app';

describe('authentication, IP whitelist and routing', () => {
  let app: TestApp;
  let proxied: TestApp;

  before(async () => {
    app = await startApp();
    proxied = await startApp({ TRUSTED_PROXIES: '127.0.0.1' });
  });
  after(async () => {
    await app.stop();
    await proxied.stop();
  });

  it('refuses a request without Authorization: Authentication credentials were not provided.', async () => {
    for (const path of ['/merchant', '/payment/list', '/rates?currency=TRX', '/payment/get/1']) {
      const res = await app.api(path, null);
      assert.equal(res.status, 403, path);
      assert.deepEqual(res.json, { detail: 'Authentication credentials were not provided.' });
    }
    const post = await app.api('/payment/create', null, { method: 'POST', body: { type: 'SINGLE' } });
    assert.equal(post.status, 403);
  });

  it('refuses unknown, malformed and revoked keys: Invalid API key', async () => {
    const { merchant, key } = await app.createMerchant();
    for (const header of ['tk_nope', 'Bearer', 'two words here', '']) {
      const res = await app.api('/merchant', header);
      assert.equal(res.status, 403, header);
      assert.deepEqual(res.json, { detail: header === '' ? 'Authentication credentials were not provided.' : 'Invalid API key' }, header);
    }
    await app.prisma.apiKey.updateMany({ where: { merchantId: merchant.id }, data: { revokedAt: new Date() } });
    assert.deepEqual((await app.api('/merchant', key)).json, { detail: 'Invalid API key' });
  });

  it('accepts the bare key and the Bearer, Token and Api-Key schemes, and records last use', async () => {
    const { merchant, key } = await app.createMerchant();
    for (const header of [key, `Bearer ${key}`, `Token ${key}`, `Api-Key ${key}`, `  ${key}  `]) {
      const res = await app.api('/merchant', header);
      assert.equal(res.status, 200, header);
      assert.equal(res.json.email, merchant.email);
    }
    const row = await app.prisma.apiKey.findFirstOrThrow({ where: { merchantId: merchant.id } });
    assert.ok(row.lastUsedAt && Date.now() - row.lastUsedAt.getTime() < 60_000);
  });

  it('allows only whitelisted IPs and CIDR ranges, seen from the real socket', async () => {
    const { key } = await app.createMerchant({ ipWhitelist: ['127.0.0.2', '127.0.1.0/30'] });
    const from = (localAddress: string) => app.api('/merchant', key, { localAddress });
    assert.equal((await from('127.0.0.2')).status, 200);
    assert.equal((await from('127.0.1.3')).status, 200);
    for (const ip of ['127.0.0.1', '127.0.0.3', '127.0.1.4']) {
      const res = await from(ip);
      assert.equal(res.status, 403, ip);
      // The detail says so after the spec's sample, and `reason` alone (issue 26).
      const reason = `IP address not allowed: ${ip} is not in this merchant's IP whitelist (dashboard, Settings).`;
      assert.deepEqual(res.json, { detail: `Invalid API key: ${reason}`, reason }, ip);
      assert.ok(res.json.detail.startsWith('Invalid API key'), 'a client matching the start of the spec sample still does');
    }
    assert.deepEqual((await app.api('/merchant', 'tk_nope', { localAddress: '127.0.0.1' })).json, { detail: 'Invalid API key' }, 'a bad key says nothing more');
  });

  it("refuses a key outside its own IP allow-list, after the store's whitelist, and says which list refused", async () => {
    const { merchant, key: storeKey } = await app.createMerchant({ ipWhitelist: ['127.0.0.0/24'] });
    const key = await issueApiKey(app.prisma, merchant.id, 'one server', undefined, ['127.0.0.2', '127.0.0.8/30']);
    const from = (k: string, localAddress: string) => app.api('/merchant', k, { localAddress });
    for (const ip of ['127.0.0.2', '127.0.0.9']) assert.equal((await from(key, ip)).status, 200, ip);
    for (const ip of ['127.0.0.1', '127.0.0.3', '127.0.0.12']) {
      const res = await from(key, ip);
      const reason = `IP address not allowed: ${ip} is not in this API key's IP allow-list (dashboard, API keys).`;
      assert.deepEqual(res.json, { detail: `Invalid API key: ${reason}`, reason }, ip);
      assert.equal(res.status, 403);
      // The store's other key, without a list of its own, is let in wherever the store allows.
      assert.equal((await from(storeKey, ip)).status, 200, `the store's other key from ${ip}`);
    }
    // Both lists apply: the key's own list cannot open what the store's whitelist shuts.
    const wider = await issueApiKey(app.prisma, merchant.id, 'too wide', undefined, ['127.0.1.1']);
    const res = await from(wider, '127.0.1.1');
    assert.equal(res.status, 403);
    assert.match(res.json.reason, /this merchant's IP whitelist/);
  });

  it('ignores X-Forwarded-For unless the peer is a trusted proxy', async () => {
    const { key } = await app.createMerchant({ ipWhitelist: ['203.0.113.7'] });
    const spoofed = await app.api('/merchant', key, { headers: { 'x-forwarded-for': '203.0.113.7', 'x-invoicing-client-ip': '203.0.113.7' } });
    assert.equal(spoofed.status, 403);

    const { key: viaProxy } = await proxied.createMerchant({ ipWhitelist: ['203.0.113.7'] });
    const ok = await proxied.api('/merchant', viaProxy, { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' } });
    assert.equal(ok.status, 200, ok.text);
    const wrong = await proxied.api('/merchant', viaProxy, { headers: { 'x-forwarded-for': '203.0.113.7, 198.51.100.1' } });
    assert.equal(wrong.status, 403);
    // A peer that is not the trusted proxy is taken at its word, whatever it forwards.
    const direct = await proxied.api('/merchant', viaProxy, { localAddress: '127.0.0.5', headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(direct.status, 403);
  });

  it('answers unknown routes under /v1/api with a JSON 404 and wrong methods with a JSON 405', async () => {
    const { key } = await app.createMerchant();
    for (const [method, path] of [['GET', '/nope'], ['POST', '/payment/nope/deeper'], ['DELETE', '/transactions'], ['GET', ''], ['GET', '/']]) {
      const res = await app.api(path as string, key, { method });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.match(String(res.headers['content-type']), /application\/json/);
      assert.equal(typeof res.json.detail, 'string');
    }
    for (const [method, path] of [['POST', '/merchant'], ['GET', '/payment/create'], ['DELETE', '/payment/list'], ['GET', '/payment/1/cancel'], ['PUT', '/rates?currency=TRX']]) {
      const res = await app.api(path as string, key, { method });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.deepEqual(res.json, { detail: `Method "${method}" not allowed.` });
    }
  });

  it('reports health at /healthz', async () => {
    const res = await fetch(`${app.baseUrl}/healthz`);
    assert.equal(res.status, 200);
    // No worker has ever reported on this database: the worker check does not apply (docs/operations.md).
    assert.deepEqual(await res.json(), { status: 'ok', worker: 'not expected', last_scan_age_seconds: null, restarts: { web: 0, worker: 0, devnet: 0 } });
  });
});
