import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app';
import { httpRequest, type HttpResponse } from '../helpers/http';
import { API_ROUTES } from '@/lib/http/api/routes';

/**
 * The merchant API's route table (lib/http/api): every route answers at its path and method, and
 * what the table does not name is answered from it (404, 405 with Allow, OPTIONS, HEAD). Called
 * by server.ts (API_ROUTER=direct, the default of npm start) or through Next's one catch-all route
 * (API_ROUTER=next, the default of npm run dev), it gives the same answers for every kind of
 * request a client can send. The rest of the suite runs on the default (direct).
 */
describe('the API route table, served directly and through Next', () => {
  let direct: TestApp;
  let viaNext: TestApp;
  const keys = new Map<TestApp, string>();

  before(async () => {
    [direct, viaNext] = await Promise.all([startApp(), startApp({ API_ROUTER: 'next' })]);
    for (const app of [direct, viaNext]) {
      const { key } = await app.createMerchant();
      keys.set(app, key);
      // One invoice each, so get/cancel/list have something to find (id 1 in both fresh databases).
      const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 50, currencies: ['TRX'], order_id: 'o-1', description: 'router' } });
      assert.equal(created.status, 200, created.text);
    }
  });
  after(async () => {
    await Promise.all([direct?.stop(), viaNext?.stop()]);
  });

  /** What a client can rely on: status, the headers that carry meaning, the body with this app's own values blanked. */
  function comparable(app: TestApp, res: HttpResponse) {
    const headers = Object.fromEntries(['content-type', 'allow', 'retry-after', 'location', 'x-frame-options', 'x-content-type-options'].map((h) => [h, res.headers[h]]));
    const own = new URL(app.baseUrl);
    const text = res.text
      .replaceAll(own.host, '<host>')
      .replaceAll(`localhost:${own.port}`, '<host>')
      .replace(/"(email|merchant_contact)":"[^"]*"/g, '"$1":"<email>"')
      .replace(/"(created_at|expired_at)":"[^"]*"/g, '"$1":"<time>"')
      .replace(/\?k=[\w-]+/g, '?k=<token>')
      .replace(/"(address|topup_wallet_address|activation_wallet_address)":"T\w+"/g, '"$1":"<address>"');
    return { status: res.status, headers, text };
  }

  type Case = { name: string; method?: string; path: string; auth?: boolean; body?: string; headers?: Record<string, string> };
  const cases: Case[] = [
    { name: 'merchant', path: '/v1/api/merchant' },
    { name: 'trailing slash', path: '/v1/api/merchant/' },
    { name: 'HEAD', method: 'HEAD', path: '/v1/api/merchant' },
    { name: 'OPTIONS', method: 'OPTIONS', path: '/v1/api/payment/list' },
    { name: 'method not allowed', method: 'PUT', path: '/v1/api/merchant' },
    { name: 'no credentials', path: '/v1/api/merchant', auth: false },
    { name: 'bad key', path: '/v1/api/merchant', auth: false, headers: { authorization: 'Token nope' } },
    { name: 'get', path: '/v1/api/payment/get/1' },
    { name: 'get, encoded id', path: '/v1/api/payment/get/%31' },
    { name: 'get, no such id', path: '/v1/api/payment/get/999' },
    { name: 'get, bad id', path: '/v1/api/payment/get/abc' },
    { name: 'get, unicode id', path: '/v1/api/payment/get/%E2%82%AC' },
    { name: 'list with filters', path: '/v1/api/payment/list?currency=TRX&ordering=-amount&limit=1' },
    { name: 'list, bad filter', path: '/v1/api/payment/list?status=NOPE&limit=0' },
    { name: 'transactions', path: '/v1/api/transaction/list' },
    { name: 'transaction, bad id', path: '/v1/api/transaction/get/x' },
    { name: 'rates', path: '/v1/api/rates' },
    { name: 'create, bad JSON', method: 'POST', path: '/v1/api/payment/create', body: '{"type":' },
    { name: 'create, invalid', method: 'POST', path: '/v1/api/payment/create', body: JSON.stringify({ type: 'SINGLE', amount: -1, currencies: ['BTC'] }) },
    { name: 'create, no body', method: 'POST', path: '/v1/api/payment/create' },
    { name: 'create without credentials, body unread', method: 'POST', path: '/v1/api/payment/create', auth: false, body: JSON.stringify({ pad: 'x'.repeat(200_000) }) },
    { name: 'create, too large', method: 'POST', path: '/v1/api/payment/create', body: JSON.stringify({ pad: 'x'.repeat(1_100_000) }) },
    { name: 'payout estimate, invalid', method: 'POST', path: '/v1/api/payment/multiple_transfer/calculate', body: '{}' },
    { name: 'cancel, no such invoice', method: 'DELETE', path: '/v1/api/payment/999/cancel' },
    { name: 'unknown route', path: '/v1/api/nothing/here' },
    { name: 'unknown route, POST', method: 'POST', path: '/v1/api/nothing', body: '{}' },
    { name: 'the API root', path: '/v1/api' },
    { name: 'the API root, slash', path: '/v1/api/' },
    { name: 'an incomplete path', path: '/v1/api/payment/get' },
    { name: 'a path too long', path: '/v1/api/payment/get/1/more' },
    { name: 'empty segment (redirected to the path without it)', path: '/v1/api/payment//list?limit=1' },
    { name: 'encoded fixed segment', path: '/v1/api/payment/%67et/1' },
    { name: 'OPTIONS, a param path', method: 'OPTIONS', path: '/v1/api/payment/1/cancel' },
    { name: 'OPTIONS, unknown', method: 'OPTIONS', path: '/v1/api/nothing' },
    { name: 'HEAD, POST-only path', method: 'HEAD', path: '/v1/api/payment/create' },
    { name: 'fixed segment before a param', path: '/v1/api/transaction/list?limit=1' },
    { name: 'a target URL parsing changes (a quote in the query)', path: "/v1/api/payment/list?search='o-1'" },
    { name: 'an unknown path URL parsing changes', path: "/v1/api/it's/{here}" },
    { name: 'empty segment and a quote in the query', path: "/v1/api/payment//list?search='o'" },
    { name: 'cancel last', method: 'DELETE', path: '/v1/api/payment/1/cancel' },
  ];

  it('gives the same answers for every kind of request', async () => {
    for (const c of cases) {
      const answers = [];
      for (const app of [direct, viaNext]) {
        const headers = { ...(c.auth !== false && { authorization: keys.get(app)! }), ...(c.body !== undefined && { 'content-type': 'application/json' }), ...c.headers };
        answers.push(comparable(app, await httpRequest(`${app.baseUrl}${c.path}`, { method: c.method, headers, body: c.body })));
      }
      assert.deepEqual(answers[0], answers[1], c.name);
    }
  });

  it('answers from server.ts by default, and through Next with API_ROUTER=next', async () => {
    // Next marks what it answered with its router's Vary header; server.ts sends a Content-Length instead.
    const routed = await direct.api('/payment/list', keys.get(direct)!);
    assert.equal(routed.status, 200);
    assert.equal(routed.headers.vary, undefined);
    assert.ok(Number(routed.headers['content-length']) > 0);
    const throughNext = await viaNext.api('/payment/list', keys.get(viaNext)!);
    assert.equal(throughNext.status, 200);
    assert.match(String(throughNext.headers.vary), /rsc/);
  });

  it('answers every route of the table at its method, and lists exactly its methods in Allow', async () => {
    const key = keys.get(direct)!;
    const paths = new Map<string, string[]>();
    for (const r of API_ROUTES) paths.set(r.path, [...(paths.get(r.path) ?? []), r.method]);
    assert.equal(API_ROUTES.length, 17, 'the spec names ten routes; seven more are refunds and held payments (issue 36, docs/api.md)');
    for (const [pattern, methods] of paths) {
      const path = `/v1/api${pattern.replace(':id', '1').replace(':trn_hash', 'f'.repeat(64))}`;
      const options = await httpRequest(`${direct.baseUrl}${path}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204, pattern);
      assert.equal(options.headers.allow, [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '), pattern);
      for (const method of methods) {
        const res = await httpRequest(`${direct.baseUrl}${path}`, { method, headers: { authorization: key, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
        // Routed to its handler: a real answer or the handler's own refusal (an empty body is invalid, an unknown hash not found), never the table's.
        assert.ok(res.status !== 405 && res.text !== '{"detail":"Not found."}', `${method} ${pattern}: ${res.status} ${res.text}`);
      }
      const other = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).find((m) => !methods.includes(m))!;
      const refused = await httpRequest(`${direct.baseUrl}${path}`, { method: other, headers: { authorization: key } });
      assert.equal(refused.status, 405, `${other} ${pattern}`);
      assert.deepEqual(JSON.parse(refused.text), { detail: `Method "${other}" not allowed.` });
      assert.equal(refused.headers.allow, options.headers.allow);
      // Authentication comes before the 405: an anonymous caller learns nothing about which methods exist.
      assert.equal((await httpRequest(`${direct.baseUrl}${path}`, { method: other })).status, 403, `${other} ${pattern} anonymous`);
    }
  });

  it('keeps a connection usable after a request whose body it did not read', async () => {
    const { request } = await import('node:http');
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, body?: string, auth = true) =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = request(`${direct.apiBase}${path}`, { agent, method: body ? 'POST' : 'GET', headers: { ...(auth && { authorization: keys.get(direct)! }), ...(body && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    const refused = await send('/payment/create', JSON.stringify({ pad: 'y'.repeat(300_000) }), false);
    assert.equal(refused.status, 403);
    const next = await send('/merchant');
    assert.equal(next.status, 200);
    assert.equal(next.socket, refused.socket, 'the same kept-alive connection');
    agent.destroy();
  });
});
