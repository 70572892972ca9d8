/**
 * Issue 27: the operator's and attacker's probe in production mode. Findings 2, 5 and 6 (the parts
 * on the web server), each against the real server (server.ts over the `next build` output) and a
 * real database.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TronWeb } from 'tronweb';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../helpers/devnet';
import { httpRequest, rawExchange } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

const PASSWORD = 'correct horse battery';
const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const UNKNOWN_HASH = 'ab'.repeat(32);
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;
const newEmail = () => `p-${randomBytes(5).toString('hex')}@example.com`;

async function signedIn(app: TestApp): Promise<DashboardSession> {
  const email = newEmail();
  await registerTestMerchant(app.prisma, { email, password: PASSWORD });
  const browser = new DashboardSession(app.baseUrl);
  assert.equal(await browser.signIn(email, PASSWORD), null);
  return browser;
}

describe('operator probe (issue 27)', () => {
  let app: TestApp;
  let devnet: DevnetProcess;
  // Payouts are quoted from the node.
  const chainEnv = () => ({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
  before(async () => {
    devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
    // The default request timeout (30 s): a malformed chunk must not wait for it.
    app = await startApp(chainEnv());
  });
  after(async () => {
    await app?.stop();
    await devnet?.stop();
  });

  describe('finding 5: answers that were 500s', () => {
    it('reads a risk limit written with spaces or a tab around the number, and refuses text with a 400', async () => {
      const browser = await signedIn(app);
      for (const [given, stored] of [[' 5', '5'], ['\t7.5 ', '7.5'], [' 12.50\t', '12.5']] as const) {
        const res = await browser.api('/settings', 'PATCH', { aml_risk_limit: given });
        assert.equal(res.status, 200, `${JSON.stringify(given)}: ${res.status} ${res.text}`);
        assert.equal(res.json.aml_risk_limit, stored);
        assert.equal((await browser.api('/settings')).json.aml_risk_limit, stored);
      }
      const bad = await browser.api('/settings', 'PATCH', { aml_risk_limit: ' 5 x' });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(typeof bad.json.detail, 'string');
      assert.ok(bad.json.errors.aml_risk_limit);
    });

    it('drops a callbackUrl that is no same-origin URL (query or cookie): each answer is what it is without one, pointing back at the service', async () => {
      // Neither NEXTAUTH_URL nor PUBLIC_BASE_URL is set: the service's origin is localhost on its port.
      // A user who followed a link with a bad (or hostile) callbackUrl signs in and lands on the
      // dashboard, as without it; no error page (docs/operations.md, "The public origin").
      const origin = `http://localhost:${new URL(app.baseUrl).port}`;
      const home = `next-auth.callback-url=${encodeURIComponent(origin)}`;
      const callbackCookie = (res: { headers: Record<string, unknown> }) => [res.headers['set-cookie'] ?? []].flat().map((l) => String(l).split(';')[0]!).find((c) => c.startsWith('next-auth.callback-url='));
      for (const bad of ['javascript:alert(1)', 'not a url', '//evil.example/x', 'https://evil.example/x', 'http://[::1']) {
        const cookie = `next-auth.callback-url=${encodeURIComponent(bad)}`;
        // [path, request headers, status, Location, callback cookie set, what the body is]
        const expected: [string, Record<string, string>, number, string | undefined, string | undefined, 'json' | 'html' | 'none'][] = [
          [`/api/auth/signin?callbackUrl=${encodeURIComponent(bad)}`, {}, 302, `/signin?callbackUrl=${encodeURIComponent(origin)}`, home, 'none'],
          ['/api/auth/signin', { cookie }, 302, `/signin?callbackUrl=${encodeURIComponent(origin)}`, home, 'none'],
          ['/api/auth/csrf', { cookie }, 200, undefined, home, 'json'],
          ['/api/auth/session', { cookie }, 200, undefined, home, 'json'],
          ['/dashboard', { cookie }, 307, '/signin', undefined, 'html'],
          ['/signin', { cookie }, 200, undefined, undefined, 'html'],
        ];
        for (const [path, headers, status, location, setCookie, body] of expected) {
          const res = await httpRequest(`${app.baseUrl}${path}`, { headers });
          const what = `${path} with ${JSON.stringify(bad)} (${Object.keys(headers).join() || 'query'})`;
          assert.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 200)}`);
          assert.equal(res.headers.location, location, what);
          assert.equal(callbackCookie(res), setCookie, what);
          if (body === 'json') assert.match(String(res.headers['content-type']), /^application\/json/, what);
          if (body === 'html') assert.match(String(res.headers['content-type']), /^text\/html/, what);
          assert.ok(!res.text.includes(bad.includes('evil') ? 'evil.example' : bad), `${what} repeats it`);
        }
      }
      // A path on the service itself is still honoured.
      const res = await httpRequest(`${app.baseUrl}/api/auth/signin?callbackUrl=${encodeURIComponent('/dashboard/settings')}`);
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, `/signin?callbackUrl=${encodeURIComponent(`${origin}/dashboard/settings`)}`);
      assert.equal(callbackCookie(res), `next-auth.callback-url=${encodeURIComponent(`${origin}/dashboard/settings`)}`);
    });
  });

  describe('finding 6: the web edge', () => {
    it('answers a malformed chunk size with a 400 at once, not the 408 of the request timeout', async () => {
      const port = Number(new URL(app.baseUrl).port);
      const { key } = await app.createMerchant();
      for (const [path, auth] of [
        ['/v1/api/payment/create', `Authorization: ${key}\r\n`],
        ['/api/auth/callback/credentials', ''],
      ] as const) {
        const answer = await rawExchange(port, `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`);
        const [head = '', body = ''] = answer.split('\r\n\r\n');
        assert.match(head, /^HTTP\/1\.1 400 /, `${path}: ${answer.slice(0, 300)}`);
        assert.equal(typeof JSON.parse(body).detail, 'string', path);
      }
      // A well-formed chunked body is read as before.
      const ok = parseStatus(await rawExchange(port, `POST /v1/api/payment/create HTTP/1.1\r\nHost: x\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`));
      assert.equal(ok, 400, 'an empty object is an invalid invoice, answered as one');
    });

    it('answers next-auth with the configured origin: NEXTAUTH_URL, or else PUBLIC_BASE_URL', async () => {
      for (const [env, origin] of [
        [{ PUBLIC_BASE_URL: 'https://pay.example.test' }, 'https://pay.example.test'],
        [{ PUBLIC_BASE_URL: 'https://pay.example.test', NEXTAUTH_URL: 'https://dash.example.test' }, 'https://dash.example.test'],
      ] as const) {
        const other = await startApp({ ...env, MASTER_KEY: app.env.MASTER_KEY! });
        try {
          const providers = await httpRequest(`${other.baseUrl}/api/auth/providers`);
          assert.equal(providers.status, 200, providers.text);
          assert.equal(new URL(providers.json.credentials.signinUrl).origin, origin, JSON.stringify(env));
          // The sign-in page is sent where to come back to: the configured origin, not localhost:3000.
          const signin = await httpRequest(`${other.baseUrl}/api/auth/signin`);
          const back = new URL(String(signin.headers.location), other.baseUrl).searchParams.get('callbackUrl');
          assert.equal(new URL(back ?? '').origin, origin, `${JSON.stringify(env)}: ${signin.status} ${String(signin.headers.location)}`);
        } finally {
          await other.stop();
        }
      }
    });
  });

  describe('finding 2: every action that moves money asks for a recent sign-in', () => {
    it('refunds held funds and creates payouts only with a recent sign-in or the password, as a wallet change', async () => {
      // A session older than the window (0 minutes: every sign-in is old).
      const strict = await startApp({ ...chainEnv(), DASHBOARD_REAUTH_MINUTES: '0', MASTER_KEY: app.env.MASTER_KEY! });
      try {
        const stale = await signedIn(strict);
        const wallet = await stale.api('/settings', 'PATCH', { target_wallet_address: WALLET });
        assert.equal(wallet.status, 403, wallet.text);
        assert.equal(wallet.json.code, 'reauth_required');
        const payout = { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 1 }] };
        const moves: [string, unknown, number][] = [
          [`/transactions/${UNKNOWN_HASH}/release`, { action: 'REFUND', address: randomAddress() }, 404],
          ['/payouts', payout, 200],
        ];
        for (const [path, body, passed] of moves) {
          const res = await stale.api(path, 'POST', body);
          assert.equal(res.status, 403, `${path} without password: ${res.status} ${res.text}`);
          assert.deepEqual(res.json, wallet.json, `${path}: the wallet change's refusal`);
          const wrong = await stale.api(path, 'POST', body, { 'x-confirm-password': 'wrong password!' });
          assert.equal(wrong.status, 403, `${path} wrong password`);
          assert.equal(wrong.json.detail, 'Wrong password.');
          const ok = await stale.api(path, 'POST', body, { 'x-confirm-password': PASSWORD });
          assert.equal(ok.status, passed, `${path} with password: ${ok.status} ${ok.text}`);
        }
        // FORWARD sends to the merchant's own wallet, whose change already needs the password: no prompt.
        const forward = await stale.api(`/transactions/${UNKNOWN_HASH}/release`, 'POST', { action: 'FORWARD' });
        assert.equal(forward.status, 404, forward.text);
        // Estimating a payout moves nothing.
        assert.equal((await stale.api('/payouts/estimate', 'POST', payout)).status, 200);
      } finally {
        await strict.stop();
      }
      // A fresh sign-in (the default window) is enough.
      const fresh = await signedIn(app);
      assert.equal((await fresh.api(`/transactions/${UNKNOWN_HASH}/release`, 'POST', { action: 'REFUND', address: randomAddress() })).status, 404);
      const created = await fresh.api('/payouts', 'POST', { currency: 'TRX', target_wallets: [{ address: randomAddress(), amount: 1 }] });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.json.type, 'MULTIPLE_TRANSFER');
    });
  });
});

function parseStatus(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}
