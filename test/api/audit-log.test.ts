import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decode, encode } from 'next-auth/jwt';
import { generateSync } from 'otplib';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import { execute, queryRows, sql } from '@/lib/db/sql';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { AUDIT_ACTIONS, systemActor } from '@/lib/audit/record';
import { changeMembership } from '@/lib/merchants/members';
import { registerTestMerchant } from '../helpers/accounts';
import { addIpRule, rotateWebhookSecret, updateSettings } from '@/lib/merchants/settings';
import type { AuditLog } from '@/lib/generated/prisma/client';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../helpers/devnet';
import type { HttpResponse } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

/**
 * The audit log (issue 40, docs/operations.md "Audit log"): each audited action, through the real
 * server from the dashboard and from the merchant API, writes one row with who (the e-mail signed
 * in with, or the API key), the caller's address, what it was done to and the values before and
 * after (a secret never); the database refuses to change or remove a row.
 */

const PASSWORD = 'correct horse battery';
const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
/** The dashboard's and the API's calls come from addresses of their own, so the rows' client_ip tells them apart. */
const BROWSER_IP = '127.0.0.7';
const API_IP = '127.0.0.9';
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;
const ok = (res: HttpResponse) => assert.ok(res.status >= 200 && res.status < 300, `${res.status} ${res.text}`);

describe('audit log', () => {
  let app: TestApp;
  let devnet: DevnetProcess;
  before(async () => {
    // Payouts and payout returns check their addresses on the chain: the devnet, with a funded gas wallet to quote from.
    devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
    app = await startApp({ NEXTAUTH_SECRET: randomBytes(32).toString('base64url'), TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '1000', 'TRX');
  });
  after(async () => {
    await app?.stop();
    await devnet?.stop();
  });

  async function store() {
    const email = `audit-${randomBytes(5).toString('hex')}@example.com`;
    const merchant = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: WALLET } });
    const browser = new DashboardSession(app.baseUrl, BROWSER_IP);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    return { email, id: merchant.id, browser };
  }

  /** The store's rows of one action, oldest first. */
  const rowsOf = (merchantId: number, action: string) => app.prisma.auditLog.findMany({ where: { merchantId, action }, orderBy: { id: 'asc' } });

  /** A SINGLE invoice of the store that received `trx` TRX (written as the scanner would), for a refund or a held payment. */
  async function paidInvoice(merchantId: number, key: string, trx: number) {
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    ok(res);
    const id = res.json.id as number;
    await app.prisma.invoiceCurrency.update({ where: { invoiceId_currency: { invoiceId: id, currency: 'TRX' } }, data: { receivedUnits: BigInt(trx * 1_000_000) } });
    return id;
  }

  /** A held payment of the store, as the worker leaves one (a payment the rules held). */
  async function heldPayment(merchantId: number, invoiceId: number) {
    const trnHash = randomBytes(32).toString('hex');
    await app.prisma.transaction.create({
      data: { merchantId, invoiceId, type: 'PAYMENT', trnHash, chainRef: `${trnHash}:trx`, fromAddress: randomAddress(), toAddress: randomAddress(), amountUnits: 3_000_000n, currency: 'TRX', paymentState: 'HELD' },
    });
    return trnHash;
  }

  /** A payout of the store that timed out, which may be returned. */
  async function timedOutPayout(browser: DashboardSession) {
    const res = await browser.api('/payouts', 'POST', { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 2 }] });
    ok(res);
    await app.prisma.invoice.update({ where: { id: res.json.id }, data: { status: 'TIMEOUT' } });
    return res.json.id as number;
  }

  type Store = Awaited<ReturnType<typeof store>>;
  interface Expected {
    subject?: string | null;
    before?: unknown;
    after?: unknown;
  }
  /**
   * Every dashboard action: what the test does, and the one row it must leave. `after` and `before`
   * are compared whole (so a secret, or a setting that did not change, in them fails the test).
   */
  /** A second member of the store, added through the door of memberships (a member_added row by the system). */
  async function secondMember(merchantId: number, role: 'support' | 'finance') {
    const user = await app.prisma.user.create({ data: { email: `member-${randomBytes(5).toString('hex')}@example.com` } });
    await changeMembership(app.prisma, merchantId, { kind: 'added', userId: user.id, role }, systemActor('audit test'));
    return user;
  }

  const DASHBOARD_ACTIONS: { action: string; run: (s: Store) => Promise<Expected> }[] = [
    {
      action: 'member_invited',
      run: async ({ browser }) => {
        const email = `invited-${randomBytes(5).toString('hex')}@example.com`;
        const res = await browser.api('/members/invitations', 'POST', { email, role: 'developer' });
        ok(res);
        return { subject: email, after: { email, role: 'developer', expires_at: res.json.expires_at } };
      },
    },
    {
      action: 'member_invitation_canceled',
      run: async ({ browser }) => {
        const email = `canceled-${randomBytes(5).toString('hex')}@example.com`;
        const invited = await browser.api('/members/invitations', 'POST', { email, role: 'support' });
        ok(invited);
        ok(await browser.api(`/members/invitations/${invited.json.id}`, 'DELETE'));
        return { subject: email, before: { email, role: 'support', expires_at: invited.json.expires_at } };
      },
    },
    {
      action: 'member_role_changed',
      run: async ({ browser, id }) => {
        const user = await secondMember(id, 'support');
        ok(await browser.api(`/members/${user.id}`, 'PATCH', { role: 'finance' }));
        return { subject: String(user.id), before: { email: user.email, role: 'support' }, after: { email: user.email, role: 'finance' } };
      },
    },
    {
      action: 'member_removed',
      run: async ({ browser, id }) => {
        const user = await secondMember(id, 'finance');
        ok(await browser.api(`/members/${user.id}`, 'DELETE'));
        return { subject: String(user.id), before: { email: user.email, role: 'finance' } };
      },
    },
    {
      action: 'key_created',
      run: async ({ browser, id }) => {
        ok(await browser.api('/keys', 'POST', { label: 'shop' }));
        const key = await app.prisma.apiKey.findFirstOrThrow({ where: { merchantId: id, label: 'shop' } });
        return { subject: String(key.id), before: null, after: { label: 'shop', prefix: key.prefix, scopes: key.scopes } };
      },
    },
    {
      action: 'key_changed',
      run: async ({ browser, id }) => {
        await issueApiKey(app.prisma, id, 'server');
        const key = await app.prisma.apiKey.findFirstOrThrow({ where: { merchantId: id, label: 'server' } });
        ok(await browser.api(`/keys/${key.id}`, 'PATCH', { allowed_ips: ['203.0.113.7', '198.51.100.9/24'] }));
        return { subject: String(key.id), before: { allowed_ips: [] }, after: { allowed_ips: ['203.0.113.7', '198.51.100.0/24'] } };
      },
    },
    {
      action: 'key_revoked',
      run: async ({ browser, id }) => {
        await issueApiKey(app.prisma, id, 'old');
        const key = await app.prisma.apiKey.findFirstOrThrow({ where: { merchantId: id, label: 'old' } });
        ok(await browser.api(`/keys/${key.id}`, 'DELETE'));
        return { subject: String(key.id), before: null, after: null };
      },
    },
    {
      action: 'payout_wallet_changed',
      run: async ({ browser }) => {
        const next = randomAddress();
        ok(await browser.api('/settings', 'PATCH', { target_wallet_address: next }));
        return { subject: null, before: { target_wallet_address: WALLET }, after: { target_wallet_address: next } };
      },
    },
    {
      action: 'webhook_url_changed',
      run: async ({ browser }) => {
        ok(await browser.api('/settings', 'PATCH', { webhook_url: 'https://shop.example/hooks' }));
        return { subject: null, before: { webhook_url: null }, after: { webhook_url: 'https://shop.example/hooks' } };
      },
    },
    {
      action: 'webhook_secret_changed',
      run: async ({ browser }) => {
        ok(await browser.api('/settings/webhook-secret', 'POST'));
        return { subject: null, before: null, after: null };
      },
    },
    {
      action: 'ip_whitelist_changed',
      run: async ({ browser }) => {
        ok(await browser.api('/settings/ip-whitelist', 'POST', { rule: '203.0.113.0/24' }));
        return { subject: null, before: [], after: ['203.0.113.0/24'] };
      },
    },
    {
      action: 'settings_changed',
      run: async ({ browser }) => {
        // The form sends every setting; only those that changed are in the row.
        const current = (await browser.api('/settings')).json;
        ok(await browser.api('/settings', 'PATCH', { webhook_url: current.webhook_url, aml_check: current.aml_check, webhook_retries: !current.webhook_retries, store_name: 'Audit Shop' }));
        return { subject: null, before: { webhook_retries: current.webhook_retries, store_name: null }, after: { webhook_retries: !current.webhook_retries, store_name: 'Audit Shop' } };
      },
    },
    {
      action: 'payout_created',
      run: async ({ browser }) => {
        const to = randomAddress();
        const res = await browser.api('/payouts', 'POST', { currency: 'TRX', target_wallets: [{ address: to, amount: 2 }] });
        ok(res);
        return { subject: String(res.json.id), before: null, after: { currency: 'TRX', target_wallets: [{ address: to, amount: 2 }], topup_amount: res.json.currencies_amounts.TRX } };
      },
    },
    {
      action: 'payout_returned',
      run: async ({ browser }) => {
        const id = await timedOutPayout(browser);
        const to = randomAddress();
        ok(await browser.api(`/payouts/${id}/return`, 'POST', { address: to }));
        return { subject: String(id), before: { status: 'TIMEOUT' }, after: { return_address: to } };
      },
    },
    {
      action: 'held_released',
      run: async ({ browser, id }) => {
        const key = await issueApiKey(app.prisma, id, 'seed');
        const hash = await heldPayment(id, await paidInvoice(id, key, 3));
        const to = randomAddress();
        ok(await browser.api(`/transactions/${hash}/release`, 'POST', { action: 'REFUND', address: to }));
        return { subject: hash, before: { state: 'HELD', currency: 'TRX', amount: 3 }, after: { action: 'REFUND', address: to } };
      },
    },
    {
      action: 'refund_created',
      run: async ({ browser, id }) => {
        const invoice = await paidInvoice(id, await issueApiKey(app.prisma, id, 'seed'), 5);
        const res = await browser.api(`/invoices/${invoice}/refunds`, 'POST', { currency: 'TRX', amount: 1 });
        ok(res);
        return { subject: String(res.json.id), before: null, after: { invoice_id: invoice, currency: 'TRX', amount: 1, address: null } };
      },
    },
    {
      action: 'two_factor_changed',
      run: async ({ browser }) => {
        const { secret } = (await browser.api('/settings/two-factor/totp', 'POST')).json as { secret: string };
        ok(await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: generateSync({ secret }) }));
        return { subject: 'totp', before: { totp: 'pending' }, after: { totp: 'on' } };
      },
    },
  ];

  for (const { action, run } of DASHBOARD_ACTIONS) {
    it(`${action} from the dashboard: one row, by the signed-in e-mail, from its address, with before and after`, async () => {
      const s = await store();
      const expected = await run(s);
      const rows = await rowsOf(s.id, action);
      assert.equal(rows.length, 1, `${action}: ${JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
      const row = rows[0]!;
      assert.deepEqual(
        { actorKind: row.actorKind, actor: row.actor, apiKeyId: row.apiKeyId, clientIp: row.clientIp, subject: row.subject, before: row.before, after: row.after },
        { actorKind: 'dashboard', actor: s.email, apiKeyId: null, clientIp: BROWSER_IP, subject: expected.subject ?? null, before: expected.before ?? null, after: expected.after ?? null },
      );
    });
  }

  it('member_added: one row, by who added the member, with the member and its role', async () => {
    const s = await store();
    const user = await secondMember(s.id, 'support');
    const rows = await rowsOf(s.id, 'member_added');
    assert.deepEqual(
      rows.map((r) => [r.actorKind, r.actor, r.subject, r.before, r.after]),
      [['system', 'audit test', String(user.id), null, { email: user.email, role: 'support' }]],
    );
  });

  it('covers every action the log knows', () => {
    const covered = new Set([...DASHBOARD_ACTIONS.map((a) => a.action), 'sign_in', 'sign_in_failed', 'member_added']);
    assert.deepEqual([...AUDIT_ACTIONS].filter((a) => !covered.has(a)), []);
  });

  it('never writes the webhook secret, and a save that changes nothing writes no row', async () => {
    const s = await store();
    const secret = (await s.browser.api('/settings/webhook-secret', 'POST')).json.secret as string;
    const current = (await s.browser.api('/settings')).json;
    ok(await s.browser.api('/settings', 'PATCH', { webhook_url: current.webhook_url, aml_check: current.aml_check, store_name: current.store_name }));
    const rows = await app.prisma.auditLog.findMany({ where: { merchantId: s.id, NOT: { action: 'sign_in' } } });
    assert.deepEqual(rows.map((r) => r.action), ['webhook_secret_changed']);
    const text = (await queryRows<{ t: string }>(app.prisma, sql`SELECT string_agg(audit_log::text, ' ') AS t FROM audit_log WHERE merchant_id = ${s.id}`))[0]!.t;
    assert.ok(!text.includes(secret), 'the secret is in no row');
  });

  it('sign_in and sign_in_failed: by the e-mail tried, from its address; an e-mail no store has writes nothing', async () => {
    const email = `audit-${randomBytes(5).toString('hex')}@example.com`;
    const { id } = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const browser = new DashboardSession(app.baseUrl, BROWSER_IP);
    assert.equal(await browser.signIn(email, 'not the password'), 'CredentialsSignin');
    assert.equal(await browser.signIn(email, PASSWORD), null);
    const before = await app.prisma.auditLog.count();
    assert.equal(await browser.signIn(`nobody-${randomBytes(4).toString('hex')}@example.com`, PASSWORD), 'CredentialsSignin');
    assert.equal(await app.prisma.auditLog.count(), before);
    const rows = await app.prisma.auditLog.findMany({ where: { merchantId: id }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      rows.map((r) => [r.action, r.actorKind, r.actor, r.clientIp]),
      [
        ['sign_in_failed', 'dashboard', email, BROWSER_IP],
        ['sign_in', 'dashboard', email, BROWSER_IP],
      ],
    );
  });

  it('with two-factor sign-in on: the password alone is no row, a wrong code is sign_in_failed, the sign-in once the code is right', async () => {
    const s = await store();
    const start = await s.browser.api('/settings/two-factor/totp', 'POST');
    ok(start);
    const secret = start.json.secret as string;
    const codeFor = (stepsAhead: number) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });
    ok(await s.browser.api('/settings/two-factor/totp/confirm', 'POST', { code: codeFor(0) }));
    const since = (await app.prisma.auditLog.findFirstOrThrow({ where: { merchantId: s.id }, orderBy: { id: 'desc' } })).id;
    const fresh = () => new DashboardSession(app.baseUrl, BROWSER_IP);
    assert.equal(await fresh().signIn(s.email, PASSWORD), 'TwoFactorRequired');
    assert.equal(await fresh().signIn(s.email, PASSWORD, codeFor(10)), 'WrongTwoFactorCode');
    assert.equal(await fresh().signIn(s.email, PASSWORD, codeFor(1)), null);
    const rows = await app.prisma.auditLog.findMany({ where: { merchantId: s.id, id: { gt: since } }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.clientIp, r.subject]),
      [
        ['sign_in_failed', s.email, BROWSER_IP, 'two-factor code'],
        ['sign_in', s.email, BROWSER_IP, null],
      ],
    );
  });

  it('sign_in_failed for a wrong password given to confirm a change from an older session, and the change then made with the right one', async () => {
    const s = await store();
    // The session as it is once the re-auth window has passed (a stolen cookie): its sign-in an hour older.
    const name = 'next-auth.session-token';
    const secret = app.env.NEXTAUTH_SECRET!;
    const token = await decode({ token: s.browser.cookies.get(name), secret });
    assert.ok(token && typeof token.authAt === 'number');
    s.browser.cookies.set(name, await encode({ token: { ...token, authAt: token.authAt - 3600 }, secret, maxAge: 8 * 60 * 60 }));
    const next = randomAddress();
    const wrong = await s.browser.api('/settings', 'PATCH', { target_wallet_address: next }, { 'x-confirm-password': 'not the password' });
    assert.equal(wrong.json.code, 'reauth_required', wrong.text);
    ok(await s.browser.api('/settings', 'PATCH', { target_wallet_address: next }, { 'x-confirm-password': PASSWORD }));
    const rows = await app.prisma.auditLog.findMany({ where: { merchantId: s.id, NOT: { action: 'sign_in' } }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.clientIp, r.subject]),
      [
        ['sign_in_failed', s.email, BROWSER_IP, 'password confirmation'],
        ['payout_wallet_changed', s.email, BROWSER_IP, null],
      ],
    );
  });

  it('payout_created, held_released and refund_created through the merchant API: by the key (id and prefix), from its address', async () => {
    const s = await store();
    const key = await issueApiKey(app.prisma, s.id, 'integration');
    const keyRow = await app.prisma.apiKey.findFirstOrThrow({ where: { merchantId: s.id, label: 'integration' } });
    const call = (path: string, body: unknown) => app.api(path, key, { method: 'POST', body, localAddress: API_IP });

    const payout = await call('/payment/multiple_transfer/create', { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 2 }] });
    ok(payout);
    const invoice = await paidInvoice(s.id, key, 5);
    const hash = await heldPayment(s.id, invoice);
    ok(await call(`/held_payment/${hash}/release`, { action: 'FORWARD' }));
    const refund = await call(`/payment/${invoice}/refund`, { currency: 'TRX', amount: 1 });
    ok(refund);

    const rows: AuditLog[] = await app.prisma.auditLog.findMany({ where: { merchantId: s.id, actorKind: 'api_key' }, orderBy: { id: 'asc' } });
    assert.deepEqual(
      rows.map((r) => [r.action, r.apiKeyId, r.actor, r.clientIp, r.subject]),
      [
        ['payout_created', keyRow.id, keyRow.prefix, API_IP, String(payout.json.id)],
        ['held_released', keyRow.id, keyRow.prefix, API_IP, hash],
        ['refund_created', keyRow.id, keyRow.prefix, API_IP, String(refund.json.id)],
      ],
    );
    assert.deepEqual(rows[1]!.after, { action: 'FORWARD' });
  });

  it('lists the store own rows newest first, filtered by action and day, and exports them as CSV', async () => {
    const s = await store();
    const other = await store();
    ok(await s.browser.api('/settings/ip-whitelist', 'POST', { rule: '198.51.100.1' }));
    ok(await s.browser.api('/settings/webhook-secret', 'POST'));
    ok(await other.browser.api('/settings/webhook-secret', 'POST'));

    const list = await s.browser.api('/audit');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.json.results.map((r: { action: string }) => r.action),
      ['webhook_secret_changed', 'ip_whitelist_changed', 'sign_in'],
    );
    const filtered = await s.browser.api('/audit?action=ip_whitelist_changed');
    assert.deepEqual([filtered.json.count, filtered.json.results[0].after], [1, ['198.51.100.1']]);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await s.browser.api(`/audit?date_from=${today}&date_to=${today}`)).json.count, 3);
    assert.equal((await s.browser.api('/audit?date_to=2000-01-01')).json.count, 0);
    // The last day PostgreSQL and the date filter both read: its next day is year 10000 (fuzz.test.ts found such a 500 in another list).
    assert.equal((await s.browser.api('/audit?date_from=0001-01-01&date_to=9999-12-31')).json.count, 3);
    assert.equal((await s.browser.api('/audit?action=nonsense')).status, 400);
    assert.equal((await new DashboardSession(app.baseUrl).api('/audit')).status, 401);

    const csv = await s.browser.request('/dashboard/api/audit/export?action=ip_whitelist_changed');
    assert.equal(csv.status, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.match(String(csv.headers['content-disposition']), /filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"/);
    const lines = csv.text.replace(/^\uFEFF/, '').trim().split('\r\n');
    assert.equal(lines[0], 'created_at,action,actor_kind,actor,api_key_id,client_ip,subject,before,after');
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, new RegExp(`,ip_whitelist_changed,dashboard,${s.email.replace(/\./g, '\\.')},,${BROWSER_IP.replace(/\./g, '\\.')},,\\[\\],"\\[""198\\.51\\.100\\.1""\\]"$`));
  });

  it('commits no change whose row cannot be written: the change and its row are one transaction', async () => {
    const s = await store();
    const merchant = await app.prisma.merchant.findUniqueOrThrow({ where: { id: s.id } });
    // An actor kind the table's CHECK refuses: the row's INSERT fails after the change's UPDATE ran.
    const refused = { actor: { kind: 'nobody', name: 'x' } as never, ip: null };
    await assert.rejects(updateSettings(app.prisma, merchant, { store_name: 'Never Saved', target_wallet_address: randomAddress() }, refused), /actor_kind/);
    await assert.rejects(addIpRule(app.prisma, s.id, '192.0.2.1', refused), /actor_kind/);
    await assert.rejects(rotateWebhookSecret(app.prisma, s.id, refused), /actor_kind/);
    const after = await app.prisma.merchant.findUniqueOrThrow({ where: { id: s.id } });
    assert.deepEqual([after.storeName, after.targetWalletAddress, after.ipWhitelist, after.webhookSecretEnc], [merchant.storeName, merchant.targetWalletAddress, merchant.ipWhitelist, merchant.webhookSecretEnc]);
  });

  it('refuses UPDATE, DELETE and TRUNCATE of the log in the database', async () => {
    const s = await store();
    const [row] = await rowsOf(s.id, 'sign_in');
    assert.ok(row);
    await assert.rejects(execute(app.prisma, sql`UPDATE audit_log SET action = 'nothing' WHERE id = ${row.id}`), /append-only: UPDATE refused/);
    await assert.rejects(execute(app.prisma, sql`DELETE FROM audit_log WHERE id = ${row.id}`), /append-only: DELETE refused/);
    await assert.rejects(app.prisma.$executeRawUnsafe('TRUNCATE audit_log'), /append-only: TRUNCATE refused/);
    // Nor by Prisma's own model calls, which the application would use.
    await assert.rejects(app.prisma.auditLog.deleteMany({ where: { merchantId: s.id } }), /append-only/);
    assert.deepEqual(await rowsOf(s.id, 'sign_in'), [row]);
  });

  it('keeps a store rows after the store is deleted (no cascade)', async () => {
    const s = await store();
    await app.prisma.merchant.delete({ where: { id: s.id } });
    assert.equal((await rowsOf(s.id, 'sign_in')).length, 1);
  });
});
