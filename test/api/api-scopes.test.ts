import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { API_KEY_SCOPES, type ApiKeyScope } from '@/lib/auth/scopes';
import { API_ROUTES, type ApiRoute } from '@/lib/http/api/routes';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import type { HttpResponse } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

/**
 * Scoped API keys (issue 40, docs/api.md "Key scopes"): every route of the merchant API's table,
 * read from the table itself so a route added later is covered here without a word more, called
 * with keys that hold one scope each. The key holding the route's scope is let through; every other
 * is refused with the 403 naming the scope, and the refused call changes nothing.
 */

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const PASSWORD = 'correct horse battery';

/**
 * Bodies for the routes whose body matters: both kinds of POST /payment/create (the scope depends
 * on it), and bodies a holder's call could act on. Any other route is called with `{}` (POST) or
 * no body: the scope is checked before the body is.
 */
const BODIES: Record<string, { what: string; body: unknown }[]> = {
  'POST /payment/create': [
    { what: 'an invoice', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'scopes' } },
    { what: 'a payout estimate', body: { currency: 'TRX', target_wallets: [{ address: WALLET, amount: 2 }] } },
  ],
  'POST /payment/multiple_transfer/calculate': [{ what: 'an estimate', body: { currency: 'TRX', target_wallets: [{ address: WALLET, amount: 2 }] } }],
  'POST /payment/multiple_transfer/create': [{ what: 'a payout', body: { currency: 'TRX', target_wallets: [{ address: WALLET, amount: 2 }] } }],
  'POST /held_payment/:trn_hash/release': [{ what: 'a release', body: { address: WALLET } }],
};

/** The calls to make of a route: its method and path with a body, and the scope each needs. */
function callsOf(route: ApiRoute): { what: string; body: unknown; scope: ApiKeyScope }[] {
  const samples = BODIES[`${route.method} ${route.path}`] ?? [route.method === 'POST' ? { what: 'an empty body', body: {} } : { what: 'no body', body: undefined }];
  return samples.map((s) => ({ ...s, scope: typeof route.scope === 'string' ? route.scope : route.scope.ofBody(s.body) }));
}

describe('scoped API keys', () => {
  let app: TestApp;
  let merchantId: number;
  /** One key per scope, holding only that scope. */
  const keys = new Map<ApiKeyScope, string>();
  /** Invoices to act on: one per call, so a holder's cancel does not change what the next call finds. */
  let invoiceId: () => Promise<string>;

  before(async () => {
    app = await startApp();
    const { merchant, key: every } = await app.createMerchant();
    merchantId = merchant.id;
    for (const scope of API_KEY_SCOPES) keys.set(scope, await issueApiKey(app.prisma, merchantId, scope, [scope]));
    invoiceId = async () => {
      const created = await app.api('/payment/create', every, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
      assert.equal(created.status, 200, created.text);
      return String(created.json.id);
    };
  });
  after(async () => {
    await app?.stop();
  });

  /** The route's path with its params: `:id` a new ACTIVE invoice of the merchant's (one to cancel, refund or read), a hash no payment has. */
  async function pathOf(route: ApiRoute): Promise<string> {
    const id = route.path.includes(':id') ? await invoiceId() : '1';
    return route.path.replace(/:(\w+)/g, (_, name: string) => (name === 'id' ? id : 'f'.repeat(64))) + (route.path === '/rates' ? '?currency=TRX' : '');
  }

  async function call(route: ApiRoute, path: string, key: string, body: unknown, idempotencyKey?: string): Promise<HttpResponse> {
    return app.api(path, key, { method: route.method, ...(body !== undefined && { body }), headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });
  }

  /** What a refused call must leave as it was: the merchant's invoices (payouts are invoices too), refunds and idempotency records. */
  async function state() {
    const [invoices, refunds, idempotency] = await Promise.all([
      app.prisma.invoice.findMany({ where: { merchantId }, select: { id: true, status: true, updatedAt: true }, orderBy: { id: 'asc' } }),
      app.prisma.refund.findMany({ where: { merchantId }, select: { id: true, state: true, updatedAt: true }, orderBy: { id: 'asc' } }),
      app.prisma.idempotencyKey.findMany({ where: { merchantId }, select: { key: true, completedAt: true }, orderBy: { key: 'asc' } }),
    ]);
    return { invoices, refunds, idempotency };
  }

  it('maps the routes as docs/api.md says: every GET is read, and the writes each to their own scope', () => {
    // The table below drives every call of this file, so a wrong scope in it would be tested as
    // right: the rule is pinned here, as docs/api.md's "Key scopes" table gives it.
    const WRITES: Record<string, ApiKeyScope> = {
      'POST /payment/create with an invoice': 'invoices:write',
      'POST /payment/create with a payout estimate': 'read',
      'DELETE /payment/:id/cancel': 'invoices:write',
      'POST /payment/multiple_transfer/calculate': 'read',
      'POST /payment/multiple_transfer/create': 'payouts:write',
      'POST /held_payment/:trn_hash/release': 'payouts:write',
      'POST /payment/:id/refund': 'refunds:write',
      'DELETE /refund/:id/cancel': 'refunds:write',
    };
    const seen = new Set<string>();
    for (const route of API_ROUTES) {
      for (const { what, scope } of callsOf(route)) {
        const name = `${route.method} ${route.path}`;
        if (route.method === 'GET') assert.equal(scope, 'read', name);
        else {
          const named = name in WRITES ? name : `${name} with ${what}`;
          assert.ok(named in WRITES, `${named}: say its scope in docs/api.md ("Key scopes") and here`);
          assert.equal(scope, WRITES[named], named);
          seen.add(named);
        }
      }
    }
    assert.deepEqual([...seen].sort(), Object.keys(WRITES).sort());
  });

  it('names a scope of the list for every route, and each scope is needed by some route', () => {
    const needed = new Set(API_ROUTES.flatMap((r) => callsOf(r).map((c) => c.scope)));
    for (const r of API_ROUTES) for (const c of callsOf(r)) assert.ok(API_KEY_SCOPES.includes(c.scope), `${r.method} ${r.path}: ${c.scope}`);
    assert.deepEqual([...needed].sort(), [...API_KEY_SCOPES].sort(), 'a scope no route needs would be a checkbox that does nothing');
  });

  for (const route of API_ROUTES) {
    for (const { what, body, scope } of callsOf(route)) {
      it(`${route.method} ${route.path} with ${what}: needs ${scope}`, async () => {
        for (const other of API_KEY_SCOPES.filter((s) => s !== scope)) {
          const path = await pathOf(route);
          const before = await state();
          // With an Idempotency-Key on a POST: a refusal must not store even that.
          const res = await call(route, path, keys.get(other)!, body, route.method === 'POST' ? randomUUID() : undefined);
          assert.equal(res.status, 403, `a ${other} key: ${res.status} ${res.text.slice(0, 200)}`);
          assert.deepEqual(res.json, { detail: `This API key lacks the scope ${scope}.` });
          assert.deepEqual(await state(), before, `a refused ${other} call changed nothing`);
        }
        const allowed = await call(route, await pathOf(route), keys.get(scope)!, body, route.method === 'POST' ? randomUUID() : undefined);
        assert.notEqual(allowed.status, 403, `the ${scope} key: ${allowed.text.slice(0, 200)}`);
      });
    }
  }

  it('lets an invoices:write key create an invoice and cancel it, and a read key read it', async () => {
    // The table's test above asks only "not refused"; here what the scopes are for, end to end.
    const created = await app.api('/payment/create', keys.get('invoices:write')!, { method: 'POST', body: { type: 'SINGLE', amount: 12, currencies: ['TRX'] } });
    assert.equal(created.status, 200, created.text);
    assert.equal((await app.api(`/payment/get/${created.json.id}`, keys.get('read')!)).json.id, created.json.id);
    const canceled = await app.api(`/payment/${created.json.id}/cancel`, keys.get('invoices:write')!, { method: 'DELETE' });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.json.status, 'CANCELED');
  });

  describe('from the dashboard', () => {
    let browser: DashboardSession;
    before(async () => {
      const email = `scopes-${randomUUID()}@example.com`;
      await registerTestMerchant(app.prisma, { email, password: PASSWORD });
      browser = new DashboardSession(app.baseUrl);
      assert.equal(await browser.signIn(email, PASSWORD), null);
    });

    const createKey = async (body: unknown): Promise<string> => {
      const res = await browser.api('/keys', 'POST', body);
      assert.equal(res.status, 200, res.text);
      return (res.json as { key: string }).key;
    };

    it('creates a key with the scopes chosen, in the list order, and lists them', async () => {
      await createKey({ label: 'read and refunds', scopes: ['refunds:write', 'read'] });
      const listed = (await browser.api('/keys')).json as { label: string; scopes: string[] }[];
      assert.deepEqual(listed.find((k) => k.label === 'read and refunds')?.scopes, ['read', 'refunds:write']);
    });

    it('gives a key made without scopes every scope: it can call every endpoint', async () => {
      const key = await createKey({ label: 'as before' });
      const listed = (await browser.api('/keys')).json as { label: string; scopes: string[] }[];
      assert.deepEqual(listed.find((k) => k.label === 'as before')?.scopes, [...API_KEY_SCOPES]);
      for (const route of API_ROUTES) {
        for (const { what, body } of callsOf(route)) {
          const res = await call(route, await pathOf(route), key, body);
          assert.notEqual(res.status, 403, `${route.method} ${route.path} with ${what}: ${res.text.slice(0, 200)}`);
        }
      }
    });

    it('refuses an unknown scope and an empty list with a 400 naming the problem, and makes no key', async () => {
      const count = () => browser.api('/keys').then((r) => (r.json as unknown[]).length);
      const before = await count();
      const unknown = await browser.api('/keys', 'POST', { label: 'x', scopes: ['read', 'admin'] });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.json.detail, 'scopes[1]: Unknown scope "admin"; the scopes are read, invoices:write, payouts:write, refunds:write.');
      const empty = await browser.api('/keys', 'POST', { label: 'x', scopes: [] });
      assert.equal(empty.status, 400, empty.text);
      assert.equal(empty.json.detail, 'scopes: Choose at least one scope of read, invoices:write, payouts:write, refunds:write.');
      const notAList = await browser.api('/keys', 'POST', { label: 'x', scopes: 'read' });
      assert.equal(notAList.status, 400, notAList.text);
      assert.match(notAList.json.detail, /^scopes: /);
      assert.equal(await count(), before);
    });

    it('keeps a key to the addresses given at creation and changed later, canonical and once each, and refuses a bad one', async () => {
      type Listed = { id: number; label: string; allowed_ips: string[] };
      const find = async (label: string) => ((await browser.api('/keys')).json as Listed[]).find((k) => k.label === label)!;
      const key = await createKey({ label: 'shop server', allowed_ips: ['127.0.0.2', '10.1.2.3/8', '127.0.0.2'] });
      assert.deepEqual((await find('shop server')).allowed_ips, ['127.0.0.2', '10.0.0.0/8']);
      assert.equal((await app.api('/merchant', key, { localAddress: '127.0.0.2' })).status, 200);
      assert.equal((await app.api('/merchant', key, { localAddress: '127.0.0.1' })).status, 403);
      assert.deepEqual((await find('as before')).allowed_ips, [], 'a key made without a list has none');

      const { id } = await find('shop server');
      const changed = await browser.api(`/keys/${id}`, 'PATCH', { allowed_ips: ['127.0.0.1'] });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.json.allowed_ips, ['127.0.0.1']);
      assert.equal((await app.api('/merchant', key, { localAddress: '127.0.0.1' })).status, 200, 'the change holds at the next call');
      assert.equal((await app.api('/merchant', key, { localAddress: '127.0.0.2' })).status, 403);

      const bad = await browser.api(`/keys/${id}`, 'PATCH', { allowed_ips: ['127.0.0.1', 'not-an-ip'] });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.detail, 'allowed_ips[1]: "not-an-ip" is not an IP address or CIDR range');
      const tooMany = await browser.api('/keys', 'POST', { label: 'many', allowed_ips: Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`) });
      assert.equal(tooMany.status, 400, tooMany.text);
      assert.equal(tooMany.json.detail, 'allowed_ips: At most 20 addresses or ranges per key.');
      assert.equal((await find('many')), undefined);
      assert.deepEqual((await find('shop server')).allowed_ips, ['127.0.0.1'], 'a refused change changes nothing');

      const cleared = await browser.api(`/keys/${id}`, 'PATCH', { allowed_ips: [] });
      assert.deepEqual(cleared.json.allowed_ips, []);
      assert.equal((await app.api('/merchant', key, { localAddress: '127.0.0.2' })).status, 200, 'empty: wherever the store allows');

      assert.equal((await browser.api(`/keys/${id}`, 'DELETE')).status, 204);
      const revoked = await browser.api(`/keys/${id}`, 'PATCH', { allowed_ips: ['127.0.0.1'] });
      assert.equal(revoked.status, 409, revoked.text);
      assert.equal(revoked.json.detail, 'This API key is revoked: it can no longer be used from anywhere.');
      assert.equal((await browser.api('/keys/999999', 'PATCH', { allowed_ips: [] })).status, 404);
    });
  });
});
