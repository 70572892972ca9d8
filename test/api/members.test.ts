import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { systemActor } from '@/lib/audit/record';
import { hashApiKey, issueApiKey } from '@/lib/auth/apiKeys';
import { passwordHash } from '../helpers/accounts';
import { MEMBER_ROLES, ROLES, roleNames, type MemberRole } from '@/lib/auth/roles';
import { migrate, MIGRATIONS_DIR } from '@/lib/db/migrate';
import { DASHBOARD_ROUTES, type DashboardRoute } from '@/lib/http/dashboard/routes';
import { changeMembership, LAST_OWNER } from '@/lib/merchants/members';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import type { HttpResponse } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

/**
 * Members and roles (issue 40, docs/dashboard.md "Roles"): every role against every row of the
 * dashboard's route table, read from the table itself so a route added later is covered here
 * without a word more. A role the row allows is let through (not 403); every other is refused
 * with the 403 naming the roles needed, and the refused call changes nothing. Then what roles are
 * for: a removed member or a changed role takes effect at the next request, a store keeps an
 * owner, the payout wallet is the owner's, a user in two stores switches, and the migration keeps
 * the logins of the accounts it found.
 */

const PASSWORD = 'correct horse battery';
const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const OTHER_WALLET = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const NOBODY = '999999';

/** Bodies that would change something, were the call let through; any other POST or PATCH sends `{}`. */
const BODIES: Record<string, unknown> = {
  'PATCH /settings': { webhook_url: 'https://hook.example/roles' },
  'PATCH /members/:userId': { role: 'admin' },
  'POST /keys': { label: 'roles' },
  // The test's own address: were it the store's key the API calls use, they would go on working.
  'PATCH /keys/:id': { allowed_ips: ['127.0.0.1'] },
  // The test's own address, so the API calls that make its invoices go on working once an allowed role added it.
  'POST /settings/ip-whitelist': { rule: '127.0.0.1' },
  'POST /payouts/estimate': { currency: 'TRX', target_wallets: [{ address: WALLET, amount: 2 }] },
};

describe('members and roles (issue 40)', () => {
  let app: TestApp;
  let storeId: number;
  let key: string;
  /** One signed-in member per role, each a user of this store only. */
  const sessions = new Map<MemberRole, DashboardSession>();
  const userIds = new Map<MemberRole, number>();
  let counter = 0;

  /** A new user of `role` in `store`, signed in. */
  async function member(store: number, role: MemberRole): Promise<{ userId: number; email: string; browser: DashboardSession }> {
    const email = `member-${role}-${Date.now()}-${counter++}@example.com`;
    const user = await app.prisma.user.create({ data: { email, passwordHash: await passwordHash(PASSWORD) } });
    await changeMembership(app.prisma, store, { kind: 'added', userId: user.id, role }, systemActor('members test'));
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    return { userId: user.id, email, browser };
  }

  before(async () => {
    app = await startApp();
    const ownerEmail = `owner-${Date.now()}@example.com`;
    storeId = (await registerTestMerchant(app.prisma, { email: ownerEmail, password: PASSWORD })).id;
    await app.prisma.merchant.update({ where: { id: storeId }, data: { targetWalletAddress: WALLET } });
    key = await issueApiKey(app.prisma, storeId, 'roles');
    const owner = new DashboardSession(app.baseUrl);
    assert.equal(await owner.signIn(ownerEmail, PASSWORD), null);
    sessions.set('owner', owner);
    userIds.set('owner', (await app.prisma.user.findUniqueOrThrow({ where: { email: ownerEmail } })).id);
    for (const role of MEMBER_ROLES.filter((r) => r !== 'owner')) {
      const m = await member(storeId, role);
      sessions.set(role, m.browser);
      userIds.set(role, m.userId);
    }
  });
  after(async () => {
    await app?.stop();
  });

  async function newInvoice(): Promise<string> {
    const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(created.status, 200, created.text);
    return String(created.json.id);
  }

  /** The route's path: `:id` a new ACTIVE invoice of the store, `:hash` one no payment has, `:userId` the support member (refused calls) or nobody (allowed ones). */
  async function pathOf(route: DashboardRoute, allowed: boolean): Promise<string> {
    // An invitation's :id is a pending invitation of this store, so a refused cancel would show in state().
    const id = route.path.startsWith('/members/invitations/') ? await newInvitation() : route.path.includes(':id') ? await newInvoice() : '1';
    return route.path.replace(/:(\w+)/g, (_, name: string) => (name === 'id' ? id : name === 'hash' ? 'f'.repeat(64) : allowed ? NOBODY : String(userIds.get('support'))));
  }

  /** A pending invitation of the store, made as inviteMember would store it (the token is never used here). */
  async function newInvitation(): Promise<string> {
    const row = await app.prisma.memberInvitation.create({
      data: { merchantId: storeId, email: `invited-${counter++}@example.com`, role: 'support', tokenHash: `test-${Date.now()}-${counter}`, invitedBy: 'members test', expiresAt: new Date(Date.now() + 86_400_000) },
    });
    return String(row.id);
  }

  function call(role: MemberRole, route: DashboardRoute, path: string): Promise<HttpResponse> {
    const name = `${route.method} ${route.path}`;
    const body = name in BODIES ? BODIES[name] : route.method === 'POST' || route.method === 'PATCH' ? {} : undefined;
    return sessions.get(role)!.api(path, route.method, body);
  }

  /** What a refused call must leave as it was: the store's row, invoices, refunds, keys, members, invitations, their logins, deliveries and audit log. */
  async function state() {
    const where = { merchantId: storeId };
    return Promise.all([
      app.prisma.merchant.findUniqueOrThrow({ where: { id: storeId } }),
      app.prisma.invoice.findMany({ where, select: { id: true, status: true, updatedAt: true }, orderBy: { id: 'asc' } }),
      app.prisma.refund.findMany({ where, select: { id: true, state: true, updatedAt: true }, orderBy: { id: 'asc' } }),
      app.prisma.apiKey.findMany({ where, select: { id: true, label: true, revokedAt: true, allowedIps: true }, orderBy: { id: 'asc' } }),
      app.prisma.membership.findMany({ where, orderBy: { id: 'asc' } }),
      app.prisma.memberInvitation.findMany({ where, orderBy: { id: 'asc' } }),
      app.prisma.user.findMany({ where: { memberships: { some: where } }, orderBy: { id: 'asc' } }),
      app.prisma.webhookDelivery.count({ where }),
      app.prisma.auditLog.count({ where }),
    ]);
  }

  it('gives every route of the table its roles, the owner in each, and pins the rules docs/dashboard.md gives', () => {
    for (const r of DASHBOARD_ROUTES) {
      assert.ok(r.roles.length > 0 && r.roles.every((role) => MEMBER_ROLES.includes(role)), `${r.method} ${r.path}`);
      assert.ok(r.roles.includes('owner'), `${r.method} ${r.path}: the owner may do everything`);
    }
    const rolesOf = (method: string, p: string) => DASHBOARD_ROUTES.find((r) => r.method === method && r.path === p)?.roles;
    assert.deepEqual(rolesOf('PATCH', '/members/:userId'), ['owner']);
    assert.deepEqual(rolesOf('DELETE', '/members/:userId'), ['owner']);
    assert.deepEqual(rolesOf('DELETE', '/members/invitations/:id'), ['owner']);
    for (const [method, p] of [['POST', '/payouts'], ['POST', '/invoices/:id/refunds'], ['POST', '/transactions/:hash/release'], ['POST', '/payouts/:id/return']]) assert.deepEqual(rolesOf(method!, p!), ['owner', 'finance'], `${method} ${p}`);
    for (const p of ['/invoices/export', '/transactions/export']) assert.ok(rolesOf('GET', p)?.includes('finance'), p);
    for (const [method, p] of [['GET', '/keys'], ['POST', '/keys'], ['PATCH', '/keys/:id'], ['DELETE', '/keys/:id']]) assert.deepEqual(rolesOf(method!, p!), ['owner', 'admin', 'developer'], `${method} ${p}`);
    assert.deepEqual(rolesOf('POST', '/webhooks/:id/resend'), ['owner', 'admin', 'support', 'developer']);
    assert.deepEqual(rolesOf('GET', '/audit'), ['owner', 'admin']);
    assert.deepEqual(rolesOf('PATCH', '/settings'), ['owner', 'admin']);
    for (const p of ['/invoices', '/invoices/:id', '/transactions', '/webhooks', '/webhooks/:id']) assert.deepEqual(rolesOf('GET', p), ROLES.read, p);
  });

  for (const route of DASHBOARD_ROUTES) {
    it(`${route.method} ${route.path}: ${roleNames(route.roles)} may call it, every other role is refused and changes nothing`, async () => {
      for (const role of MEMBER_ROLES) {
        const allowed = route.roles.includes(role);
        const p = await pathOf(route, allowed);
        if (allowed) {
          const res = await call(role, route, p);
          // Allowed for its role; a route that then asks for the password again (removing a passkey asks always) is no role refusal.
          assert.ok(res.status !== 403 || res.json.code === 'reauth_required', `${role}: ${res.status} ${res.text.slice(0, 200)}`);
          continue;
        }
        const beforeCall = await state();
        const res = await call(role, route, p);
        assert.equal(res.status, 403, `${role}: ${res.status} ${res.text.slice(0, 200)}`);
        assert.deepEqual(res.json, { detail: `This needs the role ${roleNames(route.roles)}; your role in this store is '${role}'.` });
        assert.deepEqual(await state(), beforeCall, `a refused ${role} call changed nothing`);
      }
    });
  }

  it('lets only the owner change the payout wallet; an admin changes the other settings', async () => {
    const admin = sessions.get('admin')!;
    for (const target of [OTHER_WALLET, null]) {
      const refused = await admin.api('/settings', 'PATCH', { target_wallet_address: target });
      assert.equal(refused.status, 403, refused.text);
      assert.deepEqual(refused.json, { detail: "Changing the payout wallet needs the role 'owner'; your role in this store is 'admin'." });
    }
    assert.equal((await app.prisma.merchant.findUniqueOrThrow({ where: { id: storeId } })).targetWalletAddress, WALLET);
    assert.equal((await admin.api('/settings', 'PATCH', { aml_check: true, target_wallet_address: WALLET })).status, 200, 'the same wallet sent again is no change');
    // The owner's change goes on to the address check (the node, which this stack has none of): not refused for its role.
    const owner = await sessions.get('owner')!.api('/settings', 'PATCH', { target_wallet_address: OTHER_WALLET });
    assert.notEqual(owner.status, 403, owner.text);
  });

  it('ends a removed member’s access at its next request, and a changed role applies at the next request', async () => {
    const owner = sessions.get('owner')!;
    const support = await member(storeId, 'support');
    assert.equal((await support.browser.api('/invoices')).status, 200);
    const removed = await owner.api(`/members/${support.userId}`, 'DELETE');
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await support.browser.api('/invoices')).status, 401, 'removed: signed out at the next request');
    assert.equal(await new DashboardSession(app.baseUrl).signIn(support.email, PASSWORD), 'CredentialsSignin', 'a user of no store cannot sign in');

    const dev = await member(storeId, 'developer');
    assert.equal((await dev.browser.api('/keys')).status, 200);
    const changed = await owner.api(`/members/${dev.userId}`, 'PATCH', { role: 'support' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.role, 'support');
    assert.equal((await dev.browser.api('/keys')).status, 403, 'support now: no keys');
    assert.equal((await dev.browser.api('/invoices')).status, 200);

    const rows = await app.prisma.auditLog.findMany({ where: { merchantId: storeId, action: { in: ['member_removed', 'member_role_changed'] }, subject: { in: [String(support.userId), String(dev.userId)] } }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.subject, r.before, r.after]),
      [
        ['member_removed', (await app.prisma.user.findUniqueOrThrow({ where: { id: userIds.get('owner')! } })).email, String(support.userId), { email: support.email, role: 'support' }, null],
        ['member_role_changed', rows[1]?.actor, String(dev.userId), { email: dev.email, role: 'developer' }, { email: dev.email, role: 'support' }],
      ],
    );
  });

  it('lists the members to every member; the owner first', async () => {
    const list = await sessions.get('support')!.api('/members');
    assert.equal(list.status, 200, list.text);
    const results = list.json.results as { role: string; user_id: number }[];
    assert.equal(results[0]?.role, 'owner');
    assert.deepEqual(list.json.you, { user_id: userIds.get('support'), role: 'support' });
  });

  it('keeps an owner: the last one can be neither removed nor demoted, with a 400 that says why', async () => {
    const store = (await registerTestMerchant(app.prisma, { email: `last-owner-${Date.now()}@example.com`, password: PASSWORD })).id;
    const first = await app.prisma.membership.findFirstOrThrow({ where: { merchantId: store } });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn((await app.prisma.user.findUniqueOrThrow({ where: { id: first.userId } })).email, PASSWORD), null);
    for (const [method, body] of [['DELETE', undefined], ['PATCH', { role: 'admin' }]] as const) {
      const res = await browser.api(`/members/${first.userId}`, method, body);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.json, { detail: LAST_OWNER });
    }
    assert.equal((await app.prisma.membership.findUniqueOrThrow({ where: { id: first.id } })).role, 'owner');
    // With a second owner, the first may step down, and then leave.
    const second = await member(store, 'owner');
    assert.equal((await browser.api(`/members/${first.userId}`, 'PATCH', { role: 'admin' })).json.role, 'admin');
    const lastOne = await second.browser.api(`/members/${second.userId}`, 'PATCH', { role: 'finance' });
    assert.deepEqual([lastOne.status, lastOne.json], [400, { detail: LAST_OWNER }]);
    assert.equal((await second.browser.api(`/members/${first.userId}`, 'DELETE')).status, 204);
    assert.equal((await browser.api('/invoices')).status, 401);
  });

  it('lets a user in two stores list them and switch, only to a store it is a member of', async () => {
    const other = (await registerTestMerchant(app.prisma, { email: `second-store-${Date.now()}@example.com`, password: PASSWORD })).id;
    const finance = await member(storeId, 'finance');
    await changeMembership(app.prisma, other, { kind: 'added', userId: finance.userId, role: 'admin' }, systemActor('members test'));
    const stores = await finance.browser.api('/stores');
    assert.equal(stores.status, 200, stores.text);
    assert.equal(stores.json.current, storeId);
    assert.deepEqual((stores.json.results as { id: number; role: string }[]).map((s) => [s.id, s.role]), [[storeId, 'finance'], [other, 'admin']]);
    const switchTo = async (id: number) => {
      const { csrfToken } = (await finance.browser.request('/api/auth/csrf')).json as { csrfToken: string };
      const res = await finance.browser.request('/api/auth/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: { csrfToken, data: { storeId: id } } });
      assert.equal(res.status, 200, res.text);
    };
    await switchTo(other);
    assert.equal((await finance.browser.api('/stores')).json.current, other);
    assert.equal((await finance.browser.api('/keys')).status, 200, 'an admin there');
    await switchTo(storeId + 1_000_000);
    assert.equal((await finance.browser.api('/stores')).json.current, other, 'not a member: stays');
    await switchTo(storeId);
    assert.equal((await finance.browser.api('/keys')).status, 403, 'finance here');
  });
});

describe('migration 0101 (users and stores apart)', () => {
  it('turns an existing merchant into a store whose login is a user with an owner membership: the old password and key work unchanged', async () => {
    const server = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres');
    const name = `t_users_${Date.now()}`;
    const adminClient = new pg.Client({ connectionString: server.toString() });
    await adminClient.connect();
    await adminClient.query(`CREATE DATABASE "${name}"`);
    const url = new URL(server);
    url.pathname = `/${name}`;
    const database = { url: url.toString(), drop: async () => void (await adminClient.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)) };
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    let app: TestApp | undefined;
    try {
      for (const m of await readdir(MIGRATIONS_DIR)) if (m < '0101') await cp(path.join(MIGRATIONS_DIR, m), path.join(dir, m), { recursive: true });
      await migrate(database.url, dir);
      const key = 'tk_migrated_key_0123456789abcdef';
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const hash = await passwordHash(PASSWORD);
      const { rows } = await client.query(
        `INSERT INTO merchants (id, email, password_hash, topup_wallet_address, activation_wallet_address, webhook_secret_enc, session_epoch, account_xpub)
         VALUES (7, 'old@example.com', $1, 'Ttopup-old', 'Tactivation-old', 'unused', 3, 'xpub-unused') RETURNING id`,
        [hash],
      );
      await client.query(`INSERT INTO api_keys (merchant_id, label, prefix, key_hash, scopes) VALUES ($1, 'old', 'tk_migr', $2, ARRAY['read'])`, [rows[0].id, hashApiKey(key)]);
      await client.end();
      assert.deepEqual(await migrate(database.url), (await readdir(MIGRATIONS_DIR)).filter((m) => m >= '0101').sort());

      app = await startApp({}, { database });
      const user = await app.prisma.user.findUniqueOrThrow({ where: { email: 'old@example.com' }, include: { memberships: true } });
      assert.deepEqual([user.id, user.passwordHash, user.sessionEpoch], [7, hash, 3]);
      assert.deepEqual(user.memberships.map((m) => [m.merchantId, m.role]), [[7, 'owner']]);
      const browser = new DashboardSession(app.baseUrl);
      assert.equal(await browser.signIn('old@example.com', PASSWORD), null, 'the old password signs in');
      assert.equal((await browser.api('/settings')).json.email, 'old@example.com');
      assert.equal((await browser.api('/keys')).status, 200, 'as the owner');
      assert.equal((await app.api('/merchant', key)).status, 200, 'the old key works');
      const next = await app.prisma.user.create({ data: { email: 'new@example.com' } });
      assert.ok(next.id > 7, 'the id sequence continues after the migrated ids');
    } finally {
      await app?.stop();
      await rm(dir, { recursive: true });
      await database.drop();
      await adminClient.end();
    }
  });
});
