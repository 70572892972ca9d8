import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { registerMerchant } from '@/lib/auth/signup';
import { MAX_FAILED_SIGN_INS, throttledSignIn, TooManySignInAttempts } from '@/lib/auth/signInThrottle';
import { startApp, type TestApp } from './helpers/app';
import { httpRequest, type HttpResponse, type RequestOptions } from './helpers/http';

const PASSWORD = 'correct horse battery';
const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

/** A browser stand-in: keeps next-auth's cookies and calls the dashboard from one source IP. */
class Browser {
  private cookies = new Map<string, string>();
  constructor(
    private readonly app: TestApp,
    private readonly localAddress = '127.0.0.1',
  ) {}

  async request(path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await httpRequest(`${this.app.baseUrl}${path}`, { ...opts, localAddress: this.localAddress, headers: { ...(cookie && { cookie }), ...opts.headers } });
    const setCookie = res.headers['set-cookie'] ?? [];
    for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }

  /** next-auth's credentials flow as its client runs it: CSRF token, then the callback. Returns the error, or null. */
  async signIn(email: string, password: string): Promise<string | null> {
    const { csrfToken } = (await this.request('/api/auth/csrf')).json as { csrfToken: string };
    const res = await this.request('/api/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrfToken, email, password, json: 'true' }).toString(),
    });
    return new URL((res.json as { url: string }).url).searchParams.get('error');
  }

  api(path: string, method = 'GET', body?: unknown): Promise<HttpResponse> {
    return this.request(`/dashboard/api${path}`, { method, body });
  }
}

describe('merchant dashboard', () => {
  let app: TestApp;
  const newEmail = () => `d-${randomBytes(5).toString('hex')}@example.com`;
  async function signedIn(): Promise<{ browser: Browser; email: string; id: number }> {
    const email = newEmail();
    const merchant = await registerMerchant(app.prisma, { email, password: PASSWORD });
    const browser = new Browser(app);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    return { browser, email, id: merchant.id };
  }

  before(async () => {
    app = await startApp({ NEXTAUTH_SECRET: randomBytes(32).toString('base64url') });
  });
  after(() => app.stop());

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

  it('refuses a wrong password and never stores the plain one', async () => {
    const email = newEmail();
    await registerMerchant(app.prisma, { email, password: PASSWORD });
    assert.equal(await new Browser(app).signIn(email, 'wrong password!'), 'CredentialsSignin');
    const row = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });
    assert.match(row.passwordHash ?? '', /^\$2[aby]\$12\$/);
  });

  it(`locks an e-mail out from one IP after ${MAX_FAILED_SIGN_INS} failures, not from another IP`, async () => {
    const email = newEmail();
    await registerMerchant(app.prisma, { email, password: PASSWORD });
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
    assert.ok(outcomes.every((o) => o.status === 'fulfilled' || o.reason instanceof TooManySignInAttempts));
    // Each check that ran is a recorded failure; refused attempts left nothing behind.
    assert.equal(await app.prisma.signInAttempt.count({ where: key }), checks);
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
    ];
    for (const [body, field] of bad) {
      const res = await browser.api('/settings', 'PATCH', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(res.json.errors[field], `${JSON.stringify(body)} -> ${res.text}`);
    }
    const ok = await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET, webhook_url: 'https://shop.example/hook', aml_check: true, aml_risk_limit: '42.5' });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      { ...ok.json, email: undefined, ip_whitelist: undefined },
      { email: undefined, ip_whitelist: undefined, target_wallet_address: WALLET, webhook_url: 'https://shop.example/hook', aml_check: true, aml_risk_limit: '42.5' },
    );
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
    assert.deepEqual((await app.api('/merchant', key, { localAddress: '127.0.0.1' })).json, { detail: 'Invalid API key' });
    assert.deepEqual((await browser.api('/settings/ip-whitelist?rule=127.0.0.2', 'DELETE')).json.ip_whitelist, ['10.1.2.3']);
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
  });

  it('queues a resend of a webhook as a new delivery pointing at the original', async () => {
    const { browser, id } = await signedIn();
    await browser.api('/settings', 'PATCH', { target_wallet_address: WALLET });
    const invoice = (await browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 1, currencies: ['USDT'] })).json as { id: number };
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
    await app.prisma.transaction.createMany({
      data: [row(1, { amlCheck: { status: 'SUCCESS', risk_score: 3, risk_level: 'low', report_url: 'https://aml.example/r.pdf' } }), row(2, { type: 'TOPUP', currency: 'USDT' })],
    });
    const hashes = async (qs: string) => ((await browser.api(`/transactions${qs}`)).json as { results: { trn_hash: string }[] }).results.map((t) => t.trn_hash);
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

  it('refuses changes that a browser marks as cross-site', async () => {
    const { browser } = await signedIn();
    const res = await browser.request('/dashboard/api/keys', { method: 'POST', body: { label: 'x' }, headers: { 'sec-fetch-site': 'cross-site' } });
    assert.equal(res.status, 403);
  });
});
