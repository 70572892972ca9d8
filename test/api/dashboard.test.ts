import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decode, encode } from 'next-auth/jwt';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import { issueApiKey, listApiKeys } from '@/lib/auth/apiKeys';
import { registerTestMerchant } from '../helpers/accounts';
import { MAX_ATTEMPTS_PER_IP, MAX_FAILED_SIGN_INS, MAX_SIGN_UPS_PER_IP, throttledSignIn, TooManyAttempts } from '@/lib/auth/signInThrottle';
import { receivedVolumeByDay } from '@/lib/transactions/volume';
import { startApp, TEST_MNEMONIC, TEST_PASSWORD_HASH_COST, type TestApp } from '../helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../helpers/devnet';
import type { HttpResponse } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

const PASSWORD = 'correct horse battery';
const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/** The id Next gave the sign-up server action in this build, as its client finds it. */
function signUpActionId(): string {
  const manifest = JSON.parse(readFileSync(path.join(import.meta.dirname, '../..', process.env.NEXT_DIST_DIR || '.next', 'server/server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { filename: string; exportedName: string }>;
  };
  const id = Object.keys(manifest.node).find((k) => manifest.node[k]!.filename === 'app/(auth)/signup/actions.ts' && manifest.node[k]!.exportedName === 'signUp');
  assert.ok(id, 'signUp action in the build');
  return id;
}

/** The shared browser stand-in (test/helpers/session.ts) plus the sign-up form. */
class Browser extends DashboardSession {
  constructor(app: TestApp, localAddress?: string) {
    super(app.baseUrl, localAddress);
  }

  /** The sign-up form's server action, posted as Next's client posts it. */
  signUp(email: string, password: string): Promise<HttpResponse> {
    return this.request('/signup', {
      method: 'POST',
      headers: { 'next-action': signUpActionId(), 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component' },
      body: JSON.stringify([{ email, password }]),
    });
  }
}

describe('merchant dashboard', () => {
  let app: TestApp;
  const newEmail = () => `d-${randomBytes(5).toString('hex')}@example.com`;
  async function signedIn(): Promise<{ browser: Browser; email: string; id: number }> {
    const email = newEmail();
    const merchant = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const browser = new Browser(app);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    return { browser, email, id: merchant.id };
  }

  let devnet: DevnetProcess;
  before(async () => {
    // The payout routes quote on the chain: the devnet, with a funded gas wallet to simulate from.
    devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
    app = await startApp({ NEXTAUTH_SECRET: randomBytes(32).toString('base64url'), TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;
    await devnet.pay(gas, '1000', 'TRX');
  });
  after(async () => {
    await app?.stop();
    await devnet?.stop();
  });

  it('signs in with the password and shows each merchant only its own data', async () => {
    const a = await signedIn();
    const b = await signedIn();
    assert.equal((await a.browser.api('/settings')).json.email, a.email);
    await b.browser.api('/settings', 'PATCH', { target_wallet_address: WALLET });
    const created = await b.browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 5, currencies: ['TRX'] });
    assert.equal(created.status, 200, created.text);
    const theirs = created.json.id as number;
    assert.equal((await a.browser.api(`/invoices/${theirs}`)).status, 404);
    assert.equal((await a.browser.api(`/invoices/${theirs}/cancel`, 'POST')).status, 404);
    assert.equal((await a.browser.api('/invoices')).json.count, 0);
    assert.equal((await b.browser.api('/invoices')).json.count, 1);
    assert.equal((await new Browser(app).api('/settings')).status, 401);
  });

  it('refuses a wrong password and never stores the plain one: a bcrypt hash at PASSWORD_HASH_COST', async () => {
    const email = newEmail();
    assert.equal((await new Browser(app, '127.0.0.20').signUp(email, PASSWORD)).status, 200);
    assert.equal(await new Browser(app).signIn(email, 'wrong password!'), 'CredentialsSignin');
    assert.equal(await new Browser(app).signIn(email, PASSWORD), null);
    const row = await app.prisma.user.findUniqueOrThrow({ where: { email } });
    // The server hashed it at the cost it was given (the tests' 4, test/helpers/app.ts); production's default, 12, in test/run/embedded-default.
    assert.match(row.passwordHash ?? '', new RegExp(`^\\$2[aby]\\$${String(TEST_PASSWORD_HASH_COST).padStart(2, '0')}\\$`));
    assert.ok(!row.passwordHash!.includes(PASSWORD));
  });

  it(`locks an e-mail out from one IP after ${MAX_FAILED_SIGN_INS} failures, not from another IP`, async () => {
    const email = newEmail();
    await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const attacker = new Browser(app, '127.0.0.1');
    for (let i = 0; i < MAX_FAILED_SIGN_INS; i++) assert.equal(await attacker.signIn(email, `guess ${i} is wrong`), 'CredentialsSignin');
    // Even the right password is refused now, so guessing gains nothing.
    assert.match((await attacker.signIn(email, PASSWORD)) ?? '', /Too many failed sign-in attempts/);
    assert.equal(await app.prisma.signInAttempt.count({ where: { email } }), MAX_FAILED_SIGN_INS);
    assert.equal(await new Browser(app, '127.0.0.2').signIn(email, PASSWORD), null);
    // The window is counted in the database: once the failures age out, sign-in works again.
    await app.prisma.signInAttempt.updateMany({ where: { email }, data: { createdAt: new Date(Date.now() - 16 * 60_000) } });
    assert.equal(await attacker.signIn(email, PASSWORD), null);
    assert.equal(await app.prisma.signInAttempt.count({ where: { email, ip: '127.0.0.1' } }), 0);
  });

  it('lets at most the limit of concurrent guesses reach the password check', async () => {
    const key = { email: newEmail(), ip: '198.51.100.7' };
    let checks = 0;
    const wrongPassword = async () => {
      checks++;
      await new Promise((r) => setTimeout(r, 50));
      return null;
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 3 * MAX_FAILED_SIGN_INS }, () => throttledSignIn(app.prisma, key, wrongPassword)));
    assert.ok(checks <= MAX_FAILED_SIGN_INS, `${checks} password checks`);
    assert.ok(outcomes.every((o) => o.status === 'fulfilled' || o.reason instanceof TooManyAttempts));
    // Each check that ran is a recorded failure; refused attempts left nothing behind.
    assert.equal(await app.prisma.signInAttempt.count({ where: key }), checks);
  });

  it(`refuses an IP after ${MAX_ATTEMPTS_PER_IP} failures across e-mails, not another IP`, async () => {
    const ip = '127.0.0.3';
    const email = newEmail();
    await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    // One wrong guess at each of many e-mails: no single e-mail reaches its own limit.
    for (let i = 0; i < MAX_ATTEMPTS_PER_IP - 1; i++) assert.equal(await throttledSignIn(app.prisma, { email: newEmail(), ip }, async () => null), null);
    assert.equal(await new Browser(app, ip).signIn(newEmail(), PASSWORD), 'CredentialsSignin');
    assert.match((await new Browser(app, ip).signIn(email, PASSWORD)) ?? '', /Too many failed sign-in attempts from this address/);
    assert.equal(await app.prisma.signInAttempt.count({ where: { ip } }), MAX_ATTEMPTS_PER_IP, 'the refusal is not counted');
    assert.equal(await new Browser(app, '127.0.0.4').signIn(email, PASSWORD), null);
  });

  it(`lets one IP sign up ${MAX_SIGN_UPS_PER_IP} accounts in the window`, async () => {
    const signUp = new Browser(app, '127.0.0.5');
    const emails = Array.from({ length: MAX_SIGN_UPS_PER_IP + 1 }, newEmail);
    // Invalid input is refused before the throttle and does not use up the allowance.
    assert.match((await signUp.signUp(newEmail(), 'short')).text, /at least 10 characters/);
    for (const email of emails.slice(0, -1)) assert.equal((await signUp.signUp(email, PASSWORD)).status, 200);
    const refused = await signUp.signUp(emails.at(-1)!, PASSWORD);
    assert.match(refused.text, /Too many sign-ups from this address/);
    assert.equal(await app.prisma.merchant.count({ where: { email: { in: emails } } }), MAX_SIGN_UPS_PER_IP);
    assert.equal((await new Browser(app, '127.0.0.6').signUp(emails.at(-1)!, PASSWORD)).status, 200);
    assert.equal(await app.prisma.merchant.count({ where: { email: { in: emails } } }), MAX_SIGN_UPS_PER_IP + 1);
    // The sign-ups leave the window like failed sign-ins do.
    await app.prisma.signInAttempt.updateMany({ where: { ip: '127.0.0.5' }, data: { createdAt: new Date(Date.now() - 16 * 60_000) } });
    assert.doesNotMatch((await signUp.signUp(newEmail(), PASSWORD)).text, /Too many/);
  });

  it('validates settings and names the offending field', async () => {
    const { browser } = await signedIn();
    const bad: [Record<string, unknown>, string][] = [
      [{ target_wallet_address: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPe' }, 'target_wallet_address'],
      [{ target_wallet_address: '0x1234' }, 'target_wallet_address'],
      [{ webhook_url: 'ftp://example.com/hook' }, 'webhook_url'],
      [{ aml_risk_limit: 100.01 }, 'aml_risk_limit'],
      [{ aml_risk_limit: -1 }, 'aml_risk_limit'],
      [{ aml_risk_limit: 'high' }, 'aml_risk_limit'],
      [{ aml_check: 'yes' }, 'aml_check'],
      [{ underpayment_tolerance_percent: 50.01 }, 'underpayment_tolerance_percent'],
      [{ underpayment_tolerance_percent: -1 }, 'underpayment_tolerance_percent'],
      [{ underpayment_tolerance_percent: '1.005' }, 'underpayment_tolerance_percent'],
      [{ underpayment_tolerance_percent: 'some' }, 'underpayment_tolerance_percent'],
    ];
    for (const [body, field] of bad) {
      const res = await browser.api('/settings', 'PATCH', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.json.errors[field], `${JSON.stringify(body)} -> ${res.text}`);
    }
    const ok = await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET, webhook_url: 'https://shop.example/hook', aml_check: true, aml_risk_limit: '42.5', underpayment_tolerance_percent: ' 1.5' });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      { ...ok.json, email: undefined, ip_whitelist: undefined, target_wallet_changed_at: undefined },
      { email: undefined, ip_whitelist: undefined, target_wallet_changed_at: undefined, target_wallet_address: WALLET, webhook_url: 'https://shop.example/hook', aml_check: true, aml_risk_limit: '42.5', underpayment_tolerance_percent: '1.5', webhook_retries: false, webhook_held_events: false, webhook_refund_events: false, store_name: null, support_email: null, support_url: null, logo_url: null, require_two_factor: false },
    );
    // A first wallet is a setting, not a change: no "If this was not you" notice (issue 26).
    assert.equal(ok.json.target_wallet_changed_at, null, 'a first wallet is not reported as a change');
    assert.doesNotMatch((await browser.request('/dashboard')).text, /payout wallet was changed/i);
    const changed = await browser.api('/settings', 'PATCH', { target_wallet_address: randomAddress() });
    assert.ok(changed.json.target_wallet_changed_at, 'a second wallet is a change, on record');
    assert.match((await browser.request('/dashboard')).text, /payout wallet was changed/i);
    // A bad checksum is told as such, not "T..., 34 characters", which it is (issue 26).
    const badChecksum = await browser.api('/settings', 'PATCH', { target_wallet_address: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPe' });
    assert.match(badChecksum.json.errors.target_wallet_address[0], /wrong checksum/);
    assert.match((await browser.api('/settings', 'PATCH', { target_wallet_address: 'T123' })).json.errors.target_wallet_address[0], /34 in all/);
    // Emptying a field clears it.
    assert.equal((await browser.api('/settings', 'PATCH', { webhook_url: '' })).json.webhook_url, null);
  });

  it('keeps the IP whitelist canonical and enforces it on API keys', async () => {
    const { browser } = await signedIn();
    for (const rule of ['10.0.0.0/33', '300.1.1.1', 'localhost', '']) {
      const res = await browser.api('/settings/ip-whitelist', 'POST', { rule });
      assert.equal(res.status, 400, rule);
      assert.ok(res.json.errors.rule, rule);
    }
    const created = await browser.api('/keys', 'POST', { label: 'shop' });
    const key = created.json.key as string;
    assert.equal((await app.api('/merchant', key)).status, 200);
    await browser.api('/settings/ip-whitelist', 'POST', { rule: '127.0.0.2/32' });
    const res = await browser.api('/settings/ip-whitelist', 'POST', { rule: '::ffff:10.1.2.3' });
    assert.deepEqual(res.json.ip_whitelist, ['127.0.0.2', '10.1.2.3']);
    assert.equal((await app.api('/merchant', key, { localAddress: '127.0.0.2' })).status, 200);
    assert.match((await app.api('/merchant', key, { localAddress: '127.0.0.1' })).json.detail, /^Invalid API key: IP address not allowed: 127\.0\.0\.1 /);
    assert.deepEqual((await browser.api('/settings/ip-whitelist?rule=127.0.0.2', 'DELETE')).json.ip_whitelist, ['10.1.2.3']);
    // A rule stored before rules were canonical (host bits set) can still be removed by its canonical form.
    const me = await app.prisma.merchant.findFirstOrThrow({ where: { ipWhitelist: { has: '10.1.2.3' } } });
    await app.prisma.merchant.update({ where: { id: me.id }, data: { ipWhitelist: ['10.1.2.3', '10.9.8.7/8'] } });
    assert.deepEqual((await browser.api(`/settings/ip-whitelist?rule=${encodeURIComponent('10.0.0.0/8')}`, 'DELETE')).json.ip_whitelist, ['10.1.2.3']);
  });

  it('shows a new API key once, lists it by prefix and revokes it', async () => {
    const { browser } = await signedIn();
    assert.equal((await browser.api('/keys', 'POST', { label: '' })).status, 400);
    const { key } = (await browser.api('/keys', 'POST', { label: 'backend' })).json as { key: string };
    await app.api('/merchant', key);
    const [listed] = (await browser.api('/keys')).json as { id: number; prefix: string; label: string; last_used_at: string | null }[];
    assert.ok(listed && key.startsWith(listed.prefix) && listed.label === 'backend' && listed.last_used_at);
    assert.ok(!(await browser.api('/keys')).text.includes(key));
    assert.equal((await browser.api(`/keys/${listed.id}`, 'DELETE')).status, 204);
    assert.equal((await app.api('/merchant', key)).status, 403);
    const other = await signedIn();
    assert.equal((await other.browser.api(`/keys/${listed.id}`, 'DELETE')).status, 404);
  });

  it('shows and rotates the webhook signing secret', async () => {
    const { browser } = await signedIn();
    const first = (await browser.api('/settings/webhook-secret')).json.secret as string;
    assert.ok(first.length >= 32);
    const rotated = (await browser.api('/settings/webhook-secret', 'POST')).json.secret as string;
    assert.notEqual(rotated, first);
    assert.equal((await browser.api('/settings/webhook-secret')).json.secret, rotated);
    // The whsec_ form a Standard Webhooks library takes: base64 of the same key bytes.
    const whsec = (await browser.api('/settings/webhook-secret')).json.standard_webhooks_secret as string;
    assert.equal(Buffer.from(whsec.replace(/^whsec_/, ''), 'base64').toString('utf8'), rotated);
  });

  it('queues a resend of a webhook as a new delivery pointing at the original', async () => {
    const { browser, id } = await signedIn();
    await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET });
    const invoice = (await browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 5, currencies: ['USDT'] })).json as { id: number };
    const original = await app.prisma.webhookDelivery.create({
      data: { merchantId: id, invoiceId: invoice.id, eventKey: `test:${invoice.id}`, url: 'https://shop.example/hook', payload: { id: invoice.id }, status: 'FAILED', responseStatus: 500, latencyMs: 12 },
    });
    const res = await browser.api(`/webhooks/${original.id}/resend`, 'POST');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'PENDING');
    assert.equal(res.json.resend_of, original.id);
    const detail = (await browser.api(`/invoices/${invoice.id}`)).json as { deliveries: { count: number; results: { id: number }[] } };
    assert.equal(detail.deliveries.count, 2);
    assert.equal(detail.deliveries.results.length, 2);
    const stranger = await signedIn();
    assert.equal((await stranger.browser.api(`/webhooks/${original.id}/resend`, 'POST')).status, 404);
  });

  it('filters transactions and keeps them to their merchant', async () => {
    const { browser, id } = await signedIn();
    const row = (n: number, extra: object) => ({
      merchantId: id,
      type: 'PAYMENT' as const,
      trnHash: `${id}-hash-${n}`,
      chainRef: `${id}-hash-${n}:trx`,
      fromAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      toAddress: WALLET,
      amountUnits: 1_500_000n,
      currency: 'TRX' as const,
      ...extra,
    });
    // A whole AmlCheckRecord, as lib/aml/check.ts writes it: the column is parsed on read.
    await app.prisma.transaction.createMany({
      data: [row(1, { amlCheck: { id: 'c1', status: 'SUCCESS', risk_score: 3, risk_level: 'low', exposure: {}, report_url: 'https://aml.example/r.pdf', cost: 0.5, completed: true, created_at: '2025-01-10T00:00:00.000000+00:00' } }), row(2, { type: 'TOPUP', currency: 'USDT' }), row(3, { type: 'DELEGATE', amountUnits: 0n, sendState: 'CONFIRMED', createdAt: new Date('2000-01-01T00:00:00Z') })],
    });
    const hashes = async (qs: string) => ((await browser.api(`/transactions${qs}`)).json as { results: { trn_hash: string }[] }).results.map((t) => t.trn_hash);
    // The energy pool's operations, which /v1/api leaves out (issue 34), the dashboard still shows and filters by.
    assert.deepEqual(await hashes('?type=delegate'), [`${id}-hash-3`]);
    await app.prisma.transaction.deleteMany({ where: { trnHash: `${id}-hash-3` } });
    assert.deepEqual(await hashes(''), [`${id}-hash-2`, `${id}-hash-1`]);
    assert.deepEqual(await hashes('?has_aml=true'), [`${id}-hash-1`]);
    assert.deepEqual(await hashes('?has_aml=false'), [`${id}-hash-2`]);
    assert.deepEqual(await hashes('?type=topup'), [`${id}-hash-2`]);
    assert.deepEqual(await hashes('?currency=TRX'), [`${id}-hash-1`]);
    assert.deepEqual(await hashes(`?search=${id}-hash-1`), [`${id}-hash-1`]);
    const first = (await browser.api('/transactions?has_aml=true')).json.results[0];
    assert.equal(first.amount, 1.5);
    assert.equal(first.aml_check.report_url, 'https://aml.example/r.pdf');
    assert.equal((await browser.api('/transactions?date_from=2026-02-30')).status, 400);
    assert.deepEqual((await (await signedIn()).browser.api('/transactions')).json.results, []);
  });

  it('finds invoices by order id in the list and its CSV export (issue 26)', async () => {
    const { browser } = await signedIn();
    await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET });
    for (const [orderId, description] of [['UX-1', 'first'], ['UX-12', 'second'], ['other', 'ux-1 in the description'], ['ab-ux-1', 'third']]) {
      const res = await browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 5, currencies: ['TRX'], order_id: orderId, description });
      assert.equal(res.status, 200, res.text);
    }
    await browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 5, currencies: ['TRX'], order_id: 'AB-2' });
    const page = (await browser.api('/invoices?search=ux-1')).json as { count: number; results: { order_id: string }[] };
    assert.deepEqual(page.results.map((r) => r.order_id), ['other', 'UX-12', 'UX-1']);
    assert.equal(page.count, 3);
    assert.deepEqual(((await browser.api('/invoices?search=UX-12')).json as { results: { order_id: string }[] }).results.map((r) => r.order_id), ['UX-12']);
    const csv = await browser.api('/invoices/export?search=UX-12&ordering=created_at');
    assert.equal(csv.status, 200, csv.text);
    const lines = csv.text.trim().split('\r\n');
    assert.equal(lines.length, 2, csv.text);
    assert.ok(lines[1]!.includes(',UX-12,'), lines[1]);
  });

  it('cancels its own active invoice, and only once', async () => {
    const { browser } = await signedIn();
    await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET });
    const { id } = (await browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 5, currencies: ['TRX'] })).json as { id: number };
    const res = await browser.api(`/invoices/${id}/cancel`, 'POST');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.id, id);
    assert.equal(res.json.status, 'CANCELED');
    assert.equal((await browser.api(`/invoices/${id}`)).json.invoice.status, 'CANCELED');
    const again = await browser.api(`/invoices/${id}/cancel`, 'POST');
    assert.equal(again.status, 400);
    assert.equal(again.json.detail, 'Invoice cannot be canceled');
  });

  it('estimates and creates a mass payout, naming a bad target by its index', async () => {
    const { browser } = await signedIn();
    const targets = [
      { address: randomAddress(), amount: 1.25 },
      { address: randomAddress(), amount: 2 },
    ];
    for (const route of ['/payouts', '/payouts/estimate']) {
      assert.equal((await new Browser(app).api(route, 'POST', { currency: 'TRX', target_wallets: targets })).status, 401, route);
      const bad = await browser.api(route, 'POST', { currency: 'TRX', target_wallets: [targets[0], { address: 'TNotARealAddress', amount: 2 }] });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.json.errors['target_wallets[1].address'].join(' '), /valid Tron address/);
    }
    const estimate = await browser.api('/payouts/estimate', 'POST', { currency: 'TRX', target_wallets: targets });
    assert.equal(estimate.status, 200, estimate.text);
    assert.equal(estimate.json.accounts_to_activate, 2);
    const created = await browser.api('/payouts', 'POST', { currency: 'TRX', target_wallets: targets });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.type, 'MULTIPLE_TRANSFER');
    assert.equal(created.json.status, 'ACTIVE');
    assert.deepEqual(created.json.target_wallets, targets);
    assert.deepEqual(created.json.failed_targets, []);
    assert.deepEqual(created.json.currencies_amounts, { TRX: estimate.json.topup_amount });
    // It is the merchant's invoice like any other: listed, and shown with its targets.
    assert.deepEqual((await browser.api('/invoices?type=MULTIPLE_TRANSFER')).json.results.map((i: { id: number }) => i.id), [created.json.id]);
    assert.deepEqual((await browser.api(`/invoices/${created.json.id}`)).json.invoice.target_wallets, targets);
    assert.equal((await (await signedIn()).browser.api(`/invoices/${created.json.id}`)).status, 404);
  });

  it('creates invoices and payouts through the dashboard and the API in one web process, whichever comes first (issue 34)', async () => {
    // One web process runs lib/ in more than one copy (server.ts's bundle, Next's bundle), each with
    // its own copy of the packages Next bundles (@noble/curves). A value one copy made and the other
    // used (a curve point in the address cache) made every creation through the second channel a
    // 500, until the process restarted. Since issue 39 server.ts's copy answers both the API and the
    // dashboard's JSON API; this stays, should either channel move to another copy again.
    const invoice = { type: 'SINGLE', amount: 5, currencies: ['TRX', 'USDT'] };
    const payout = () => ({ currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 1 }] });
    for (const dashboardFirst of [true, false]) {
      const { browser, id } = await signedIn();
      const key = await issueApiKey(app.prisma, id, 'both channels');
      assert.equal((await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET })).status, 200);
      const viaDashboard = async () => [await browser.api('/invoices', 'POST', invoice), await browser.api('/payouts', 'POST', payout())];
      const viaApi = async () => [
        await app.api('/payment/create', key, { method: 'POST', body: invoice }),
        await app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: payout() }),
      ];
      const answers = dashboardFirst ? [...(await viaDashboard()), ...(await viaApi())] : [...(await viaApi()), ...(await viaDashboard())];
      for (const res of answers) assert.equal(res.status, 200, `dashboard first: ${dashboardFirst}: ${res.text}`);
      // Each invoice got an address of its own, derived in whichever copy answered.
      const addresses = answers.map((res) => res.json.address ?? res.json.topup_wallet_address);
      assert.equal(new Set(addresses).size, addresses.length, JSON.stringify(addresses));
    }
  });

  it('charts 30 UTC calendar days of received payments, leaving out refunded ones', async () => {
    const { id } = await signedIn();
    const now = new Date('2026-03-31T12:00:00Z');
    let n = 0;
    const payment = (createdAt: string, amountUnits: bigint, extra: object = {}) => ({
      merchantId: id,
      type: 'PAYMENT' as const,
      trnHash: `${id}-volume-${++n}`,
      chainRef: `${id}-volume-${n}:trx`,
      fromAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      toAddress: WALLET,
      amountUnits,
      currency: 'TRX' as const,
      createdAt: new Date(createdAt),
      ...extra,
    });
    await app.prisma.transaction.createMany({
      data: [
        payment('2026-03-01T23:59:59.999Z', 7_000_000n), // the 31st day back: not charted, so not counted
        payment('2026-03-02T00:00:00Z', 1_000_000n),
        payment('2026-03-02T10:00:00Z', 500_000n, { paymentState: 'SETTLED' }),
        payment('2026-03-15T08:00:00Z', 3_000_000n, { currency: 'USDT' }),
        payment('2026-03-15T09:00:00Z', 5_000_000n, { paymentState: 'REFUNDED' }),
        payment('2026-03-15T10:00:00Z', 6_000_000n, { paymentState: 'REFUNDING' }),
        payment('2026-03-31T23:59:59Z', 2_000_000n),
        payment('2026-04-01T00:00:00Z', 9_000_000n),
        payment('2026-03-20T00:00:00Z', 4_000_000n, { type: 'TOPUP' }),
      ],
    });
    const { days, volumes } = await receivedVolumeByDay(app.prisma, id, 30, now);
    assert.equal(days.length, 30);
    assert.deepEqual([days[0], days.at(-1)], ['2026-03-02', '2026-03-31']);
    assert.deepEqual(volumes, [
      { day: '2026-03-02', currency: 'TRX', units: '1500000', amount: '1.5' },
      { day: '2026-03-15', currency: 'USDT', units: '3000000', amount: '3' },
      { day: '2026-03-31', currency: 'TRX', units: '2000000', amount: '2' },
    ]);
  });

  /**
   * The browser's session as a sign-in `minutes` ago leaves it: its JWT sealed again with an older
   * `authAt` (this file gives the app its NEXTAUTH_SECRET), the epoch and everything else unchanged.
   */
  async function ageSession(browser: Browser, minutes: number): Promise<void> {
    const name = 'next-auth.session-token';
    const secret = app.env.NEXTAUTH_SECRET!;
    const token = await decode({ token: browser.cookies.get(name), secret });
    assert.ok(token && typeof token.authAt === 'number', 'a session cookie with authAt');
    browser.cookies.set(name, await encode({ token: { ...token, authAt: token.authAt - minutes * 60 }, secret, maxAge: 8 * 60 * 60 }));
  }

  it('asks a session older than the re-auth window for the password before changing what customers see or where webhooks go (issue 34)', async () => {
    const { browser, email } = await signedIn();
    await ageSession(browser, 60);
    // A stolen cookie is a session like this one: the changes that move funds already ask (test/api/hardening.test.ts).
    assert.equal((await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET })).json.code, 'reauth_required', 'the session is older than the window');
    const changes: Record<string, string> = {
      store_name: 'Mug Shop',
      support_url: 'https://mug.example/help',
      support_email: 'help@mug.example',
      logo_url: 'https://cdn.mug.example/logo.png',
      webhook_url: 'https://shop.example/hook',
    };
    for (const [field, value] of Object.entries(changes)) {
      const refused = await browser.api('/settings', 'PATCH', { [field]: value });
      assert.equal(refused.status, 403, `${field} without password: ${refused.text}`);
      assert.deepEqual(refused.json, { detail: 'Confirm your password to make this change.', code: 'reauth_required' }, field);
      assert.equal((await browser.api('/settings')).json[field], null, `${field} unchanged`);
      const wrong = await browser.api('/settings', 'PATCH', { [field]: value }, { 'x-confirm-password': 'wrong password!' });
      assert.equal(wrong.json.detail, 'Wrong password.', field);
      const ok = await browser.api('/settings', 'PATCH', { [field]: value }, { 'x-confirm-password': encodeURIComponent(PASSWORD) });
      assert.equal(ok.status, 200, `${field} with password: ${ok.text}`);
      assert.equal(ok.json[field], value, field);
    }
    // The settings form sends every field again: the same values are no change, nor is a setting no customer sees.
    const same = await browser.api('/settings', 'PATCH', { ...changes, store_name: '  Mug Shop ', aml_check: true, aml_risk_limit: '40', webhook_retries: true, underpayment_tolerance_percent: '0.00' });
    assert.equal(same.status, 200, same.text);
    // Accepting underpayments lets a buyer pay less (issue 36): a thief who is also a buyer must not set it alone.
    const tolerance = await browser.api('/settings', 'PATCH', { underpayment_tolerance_percent: '50' });
    assert.equal(tolerance.json.code, 'reauth_required', tolerance.text);
    assert.equal((await browser.api('/settings')).json.underpayment_tolerance_percent, '0');
    // Clearing one is a change: a thief could take the support contact off the payment page.
    for (const field of Object.keys(changes)) assert.equal((await browser.api('/settings', 'PATCH', { [field]: '' })).json.code, 'reauth_required', `clearing ${field}`);
    // A fresh sign-in needs no password.
    assert.equal(await browser.signIn(email, PASSWORD), null);
    assert.equal((await browser.api('/settings', 'PATCH', { store_name: 'Tea Shop', webhook_url: '' })).status, 200);
  });

  it('asks a session older than the re-auth window for the password before revoking an API key (issue 34)', async () => {
    const { browser, id } = await signedIn();
    const key = await issueApiKey(app.prisma, id, 'backend');
    const [listed] = await listApiKeys(app.prisma, id);
    await ageSession(browser, 60);
    const refused = await browser.api(`/keys/${listed!.id}`, 'DELETE');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.code, 'reauth_required');
    assert.equal((await app.api('/merchant', key)).status, 200, 'the key still works');
    // Unknown or not its own: the same refusal, so the answer says nothing about other merchants' keys.
    assert.equal((await browser.api('/keys/999999999', 'DELETE')).json.code, 'reauth_required');
    assert.equal((await browser.api(`/keys/${listed!.id}`, 'DELETE', undefined, { 'x-confirm-password': PASSWORD })).status, 204);
    assert.equal((await app.api('/merchant', key)).status, 403, 'revoked');
  });

  it('answers /api/auth/session for a revoked session as for no session', async () => {
    for (const revoke of ['sign-out', 'password change'] as const) {
      const { browser } = await signedIn();
      const stolen = new Browser(app);
      stolen.cookies = new Map(browser.cookies);
      const live = await stolen.request('/api/auth/session');
      assert.equal(live.status, 200);
      assert.equal(typeof live.json.userId, 'number', `${revoke}: a live session is described`);
      assert.equal(typeof live.json.storeId, 'number', `${revoke}: with the store it shows`);
      if (revoke === 'sign-out') await browser.signOut();
      else assert.equal((await browser.api('/settings/password', 'POST', { current_password: PASSWORD, new_password: `${PASSWORD} 2` })).status, 204);
      assert.equal((await stolen.api('/settings')).status, 401, `${revoke}: the copied cookie is dead`);
      const dead = await stolen.request('/api/auth/session');
      assert.equal(dead.status, 200);
      assert.deepEqual(dead.json, {}, `${revoke}: ${dead.text}`);
      assert.deepEqual((await new Browser(app).request('/api/auth/session')).json, {}, 'as for no session');
    }
  });

  it("answers 404 for another merchant's invoice page and for an unknown id, alike", async () => {
    const a = await signedIn();
    const b = await signedIn();
    await b.browser.api('/settings', 'PATCH', { target_wallet_address: WALLET });
    const theirs = (await b.browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 5, currencies: ['TRX'] })).json.id as number;
    assert.equal((await b.browser.request(`/dashboard/invoices/${theirs}`)).status, 200, 'its own');
    const other = await a.browser.request(`/dashboard/invoices/${theirs}`);
    const unknown = await a.browser.request('/dashboard/invoices/999999999');
    const garbage = await a.browser.request('/dashboard/invoices/abc');
    for (const [what, res] of [['theirs', other], ['unknown', unknown], ['not an id', garbage]] as const) {
      assert.equal(res.status, 404, `${what}: ${res.status}`);
      assert.match(res.text, /There is nothing at this address in your dashboard/, what);
    }
    // The same page: nothing in it tells the two apart (beyond the id in the URL). The rows of the
    // page's streamed React payload (separated by an escaped newline) come in whatever order they
    // were ready, which differs from one request to the next: compared as the same rows.
    const normalize = (html: string) => html.replaceAll(String(theirs), 'ID').replaceAll('999999999', 'ID').replace(/nonce="[^"]*"/g, '').split('\\n').sort().join('\\n');
    assert.equal(normalize(other.text), normalize(unknown.text));
    // Signed out, still the sign-in page, not a 404 that would confirm anything.
    const signedOut = await new Browser(app).request(`/dashboard/invoices/${theirs}`);
    assert.notEqual(signedOut.status, 404);
  });

  it('refuses changes that a browser marks as cross-site', async () => {
    const { browser } = await signedIn();
    const res = await browser.request('/dashboard/api/keys', { method: 'POST', body: { label: 'x' }, headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(res.status, 403);
  });
});
