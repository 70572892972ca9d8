import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerMerchant } from '@/lib/merchants/signup';
import { startApp, type TestApp } from '../helpers/app';
import { httpRequest } from '../helpers/http';
import { DashboardSession } from '../helpers/session';
import { API_ROUTES } from '@/lib/http/api/routes';
import { DASHBOARD_ROUTES } from '@/lib/http/dashboard/routes';

/**
 * The two route tables on their one router (lib/http/router.ts): the merchant API's (lib/http/api)
 * and the dashboard's JSON API (lib/http/dashboard). Every route answers at its path and method,
 * and what a table does not name is answered from it (404, 405 with Allow, OPTIONS, HEAD). Both are
 * served by server.ts itself, under npm start and npm run dev alike (issue 39: there is no other
 * path to keep equal to it any more).
 */
describe('the route tables of the merchant API and the dashboard, on one router', () => {
  let app: TestApp;
  let key: string;
  let browser: DashboardSession;

  before(async () => {
    app = await startApp();
    ({ key } = await app.createMerchant());
    // One invoice, so get/cancel/list have something to find.
    const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 50, currencies: ['TRX'], order_id: 'o-1', description: 'router' } });
    assert.equal(created.status, 200, created.text);
    await registerMerchant(app.prisma, { email: 'router@example.com', password: 'correct horse battery' });
    browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn('router@example.com', 'correct horse battery'), null);
  });
  after(async () => {
    await app?.stop();
  });

  it('answers both APIs from server.ts, not through Next', async () => {
    // Next marks what it answered with its router's Vary header; server.ts sends a Content-Length instead.
    for (const res of [await app.api('/payment/list', key), await browser.api('/settings')]) {
      assert.equal(res.status, 200);
      assert.equal(res.headers.vary, undefined);
      assert.ok(Number(res.headers['content-length']) > 0);
    }
  });

  it('answers every route of the table at its method, and lists exactly its methods in Allow', async () => {
    const paths = new Map<string, string[]>();
    for (const r of API_ROUTES) paths.set(r.path, [...(paths.get(r.path) ?? []), r.method]);
    assert.equal(API_ROUTES.length, 17, 'the spec names ten routes; seven more are refunds and held payments (issue 36, docs/api.md)');
    for (const [pattern, methods] of paths) {
      const path = `/v1/api${pattern.replace(':id', '1').replace(':trn_hash', 'f'.repeat(64))}`;
      const options = await httpRequest(`${app.baseUrl}${path}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204, pattern);
      assert.equal(options.headers.allow, [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '), pattern);
      for (const method of methods) {
        const res = await httpRequest(`${app.baseUrl}${path}`, { method, headers: { authorization: key, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
        // Routed to its handler: a real answer or the handler's own refusal (an empty body is invalid, an unknown hash not found), never the table's.
        assert.ok(res.status !== 405 && res.text !== '{"detail":"Not found."}', `${method} ${pattern}: ${res.status} ${res.text}`);
      }
      const other = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).find((m) => !methods.includes(m))!;
      const refused = await httpRequest(`${app.baseUrl}${path}`, { method: other, headers: { authorization: key } });
      assert.equal(refused.status, 405, `${other} ${pattern}`);
      assert.deepEqual(JSON.parse(refused.text), { detail: `Method "${other}" not allowed.` });
      assert.equal(refused.headers.allow, options.headers.allow);
      // Authentication comes before the 405: an anonymous caller learns nothing about which methods exist.
      assert.equal((await httpRequest(`${app.baseUrl}${path}`, { method: other })).status, 403, `${other} ${pattern} anonymous`);
    }
  });

  it("answers every route of the dashboard's table at its method, and lists exactly its methods in Allow", async () => {
    const paths = new Map<string, string[]>();
    for (const r of DASHBOARD_ROUTES) paths.set(r.path, [...(paths.get(r.path) ?? []), r.method]);
    assert.equal(DASHBOARD_ROUTES.length, 28, 'every route of the 21 Next route files that were under app/dashboard/api (issue 39)');
    for (const [pattern, methods] of paths) {
      const path = `/dashboard/api${pattern.replace(':id', '1').replace(':hash', 'f'.repeat(64))}`;
      const options = await httpRequest(`${app.baseUrl}${path}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204, pattern);
      assert.equal(options.headers.allow, [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '), pattern);
      for (const method of methods) {
        const res = await browser.api(path.slice('/dashboard/api'.length), method, method === 'POST' || method === 'PATCH' ? {} : undefined);
        // Routed to its handler: a real answer or the handler's own refusal, never the table's.
        assert.ok(res.status !== 405 && res.status !== 401 && res.text !== '{"detail":"Not found."}', `${method} ${pattern}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      const other = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).find((m) => !methods.includes(m))!;
      const refused = await browser.api(path.slice('/dashboard/api'.length), other);
      assert.equal(refused.status, 405, `${other} ${pattern}`);
      assert.deepEqual(JSON.parse(refused.text), { detail: `Method "${other}" not allowed.` });
      assert.equal(refused.headers.allow, options.headers.allow);
      // The session comes before the 405, as the API key does in the merchant API.
      assert.equal((await httpRequest(`${app.baseUrl}${path}`, { method: other, headers: { 'sec-fetch-site': 'same-origin' } })).status, 401, `${other} ${pattern} signed out`);
    }
    // What the table does not name: the JSON 404, signed in or not.
    for (const path of ['/dashboard/api', '/dashboard/api/', '/dashboard/api/nowhere', '/dashboard/api/invoices/1/more']) {
      const res = await httpRequest(`${app.baseUrl}${path}`);
      assert.equal(res.status, 404, path);
      assert.deepEqual(JSON.parse(res.text), { detail: 'Not found.' }, path);
    }
  });

  it('keeps a connection usable after a request whose body it did not read', async () => {
    const { request } = await import('node:http');
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, body?: string, auth = true) =>
      new Promise<{ status: number; socket: unknown }>((resolve, reject) => {
        const req = request(`${app.apiBase}${path}`, { agent, method: body ? 'POST' : 'GET', headers: { ...(auth && { authorization: key }), ...(body && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
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
