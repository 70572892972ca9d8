import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import { httpRequest, type HttpResponse } from '../helpers/http';
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
    await registerTestMerchant(app.prisma, { email: 'router@example.com', password: 'correct horse battery' });
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

  /**
   * Every route of a table answers at its path and method (its handler's answer or refusal, never
   * the table's 404 or 405), OPTIONS and the 405 of another method list exactly its methods, and a
   * caller without credentials meets `anonymous` before the 405: it learns nothing about which
   * methods exist.
   */
  async function checkTable(
    table: { routes: readonly { method: string; path: string }[]; base: string; params: Record<string, string> },
    send: (path: string, method: string) => Promise<HttpResponse>,
    anonymous: { status: number; headers?: Record<string, string> },
  ): Promise<void> {
    const paths = new Map<string, string[]>();
    for (const r of table.routes) paths.set(r.path, [...(paths.get(r.path) ?? []), r.method]);
    for (const [pattern, methods] of paths) {
      const path = `${table.base}${pattern.replace(/:(\w+)/g, (_, name: string) => table.params[name]!)}`;
      const options = await httpRequest(`${app.baseUrl}${path}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204, pattern);
      assert.equal(options.headers.allow, [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', '), pattern);
      for (const method of methods) {
        const res = await send(path, method);
        // Routed to its handler: a real answer or the handler's own refusal (an empty body is invalid, an unknown id or hash not found), never the table's.
        assert.ok(res.status !== 405 && res.status !== anonymous.status && res.text !== '{"detail":"Not found."}', `${method} ${pattern}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      const other = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).find((m) => !methods.includes(m))!;
      const refused = await send(path, other);
      assert.equal(refused.status, 405, `${other} ${pattern}`);
      assert.deepEqual(JSON.parse(refused.text), { detail: `Method "${other}" not allowed.` });
      assert.equal(refused.headers.allow, options.headers.allow);
      assert.equal((await httpRequest(`${app.baseUrl}${path}`, { method: other, headers: anonymous.headers })).status, anonymous.status, `${other} ${pattern} without credentials`);
    }
  }

  it("answers every route of the merchant API's table at its method, and lists exactly its methods in Allow", async () => {
    assert.equal(API_ROUTES.length, 17, 'the spec names ten routes; seven more are refunds and held payments (issue 36, docs/api.md)');
    const send = (path: string, method: string) => httpRequest(`${app.baseUrl}${path}`, { method, headers: { authorization: key, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
    await checkTable({ routes: API_ROUTES, base: '/v1/api', params: { id: '1', trn_hash: 'f'.repeat(64) } }, send, { status: 403 });
  });

  it("answers every route of the dashboard's table at its method, and lists exactly its methods in Allow", async () => {
    assert.equal(DASHBOARD_ROUTES.length, 46, 'every route of the 21 Next route files that were under app/dashboard/api (issue 39), the four of two-factor sign-in and four of its passkeys, the audit log with its export, the members, invitations (and their cancelling), the stores of a user and a key\'s IP allow-list (issue 40)');
    const send = (path: string, method: string) => browser.api(path.slice('/dashboard/api'.length), method, method === 'POST' || method === 'PATCH' ? {} : undefined);
    // Signed out: the session comes before the 405, as the API key does in the merchant API.
    await checkTable({ routes: DASHBOARD_ROUTES, base: '/dashboard/api', params: { id: '1', hash: 'f'.repeat(64), userId: '999999' } }, send, { status: 401, headers: { 'sec-fetch-site': 'same-origin' } });
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
