/**
 * Issue 14: generated bad input against every endpoint, API and dashboard and
 * public pages, through the real server. Whatever arrives, the answer is never
 * a 5xx, and every error is JSON with a string `detail` (spec part 7).
 *
 * Reproducible: the inputs come from a seeded PRNG. Re-run a failure with
 * `FUZZ_SEED=<seed printed in the failure>`; FUZZ_COUNT changes the number.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { registerTestMerchant } from '../helpers/accounts';
import { deriveAccount } from '@/lib/chain/keys';
import { startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';
import { startDevnetProcess, type DevnetProcess } from '../helpers/devnet';
import { httpRequest } from '../helpers/http';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = Number(process.env.FUZZ_COUNT ?? 2400);
const PASSWORD = 'correct horse battery';

/** mulberry32: small, fast, good enough to pick inputs, and the same sequence for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
/** encodeURIComponent, with lone surrogates (which it refuses) replaced first. */
const enc = (s: string) => encodeURIComponent(s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
const pick = <T>(r: Rand, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
const int = (r: Rand, max: number) => Math.floor(r() * max);

const NASTY_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '%00', '\\', '"', "'", '`', '%', '_', '%%', '\\%', '../../etc/passwd', '<script>alert(1)</script>',
  '${jndi:ldap://x}', '{{7*7}}', 'null', 'undefined', 'NaN', 'Infinity', '-1', '0', '1e309', '-0', '0x10', '1.0000001', '99999999999999999999999',
  'TRX', 'USDT', 'trx,usdt', 'SINGLE', 'MULTIPLE', 'MULTIPLE_TRANSFER', 'COMPLETED', 'CANCELLED', '-created_at', 'created_at,amount',
  '2026-13-45', '0000-01-01', '9999-12-31', '2026_01_01', 'T' + 'A'.repeat(33), 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd', 'http:/evil.com', 'https:evil.com',
  'https://user:pass@evil.com/', 'javascript:alert(1)', 'http://[::1]/', 'http://169.254.169.254/', 'ftp://x', '\ud800', '\uffff', '😀'.repeat(50),
  'x'.repeat(300), 'x'.repeat(3000), '10.0.0.0/8', '::/0', 'fe80::1%eth0', '1.2.3.4/33', 'a,b,,c', ' TRX ', '\r\nSet-Cookie: x=1',
];

function nastyString(r: Rand): string {
  if (r() < 0.8) return pick(r, NASTY_STRINGS);
  return Array.from({ length: int(r, 40) }, () => String.fromCharCode(int(r, 0x3000))).join('');
}

function nastyNumber(r: Rand): number {
  return pick(r, [0, -1, 1, 0.1, 1e-7, 1e21, -1e21, Number.MAX_SAFE_INTEGER, 2 ** 31, 2 ** 63, 1.5, 300, 301, 10_081, 1_000_000_001]);
}

/** A JSON value of any kind, sometimes deep or wide. */
function nastyValue(r: Rand, depth = 0): unknown {
  const kind = int(r, depth > 3 ? 5 : 8);
  switch (kind) {
    case 0:
      return nastyString(r);
    case 1:
      return nastyNumber(r);
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return pick(r, ['TRX', 'USDT', 'SINGLE', 'MULTIPLE']);
    case 5:
      return Array.from({ length: int(r, 5) }, () => nastyValue(r, depth + 1));
    case 6:
      return Object.fromEntries(Array.from({ length: int(r, 5) }, () => [pick(r, FIELDS), nastyValue(r, depth + 1)]));
    default: {
      // Nested past the depth cap (raw text goes deeper still, in nastyBody).
      let v: unknown = nastyValue(r, 4);
      for (let i = 30 + int(r, 500); i > 0; i--) v = r() < 0.5 ? [v] : { a: v };
      return v;
    }
  }
}

const FIELDS = [
  'type', 'amount', 'currencies', 'currency', 'expiry_minutes', 'client_comission', 'client_commission', 'order_id', 'webhook_url', 'redirect_url',
  'description', 'target_wallets', 'address', 'label', 'rule', 'target_wallet_address', 'aml_check', 'aml_risk_limit', 'current_password', 'new_password', '__proto__', 'constructor',
];

/** A body: JSON that is wrong in some field, or not JSON at all. */
function nastyBody(r: Rand): string {
  const roll = r();
  if (roll < 0.15) return pick(r, ['{', '}', '[', '{"a":}', 'nul', '"unterminated', '{"a":1,}', '\u0000', '{"a":"\\u0000"}', '\ufeff{}', 'true', '123', '"x"', 'x'.repeat(2000), '{"a":1}{"b":2}']);
  if (roll < 0.25) return '['.repeat(500 + int(r, 5000)) + ']'.repeat(500 + int(r, 5000));
  if (roll < 0.3) return `{"description":"${'d'.repeat(1024 * 1024 + 10)}"}`;
  const base: Record<string, unknown> = pick(r, [
    { type: 'SINGLE', amount: 1, currencies: ['TRX'] },
    { type: 'MULTIPLE', currencies: ['USDT'] },
    { currency: 'TRX', target_wallets: [{ address: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd', amount: 1 }] },
    { label: 'k' },
    { rule: '10.0.0.1' },
    { aml_check: true },
    {},
  ]);
  for (let i = int(r, 4); i >= 0; i--) base[pick(r, FIELDS)] = nastyValue(r);
  return JSON.stringify(base);
}

function nastyPathParam(r: Rand): string {
  return pick(r, ['0', '-1', '1', '2', '999999999', '1000000000', '99999999999999999999', 'abc', '1.5', '1e3', '%00', '1%00', '%2e%2e', '..', '%20', '%ZZ', '%C0%AF', 'a'.repeat(5000), '😀', '%F0%9F%98%80', '0x1', ' 1', '1;DROP TABLE invoices', enc(nastyString(r))]);
}

function nastyQuery(r: Rand): string {
  const keys = ['type', 'status', 'currency', 'date_from', 'date_to', 'ordering', 'limit', 'offset', 'search', 'invoice_id', 'from_address', 'to_address', 'trn_hash', 'has_aml', 'rule', 'k', 'page', 'action'];
  const parts = Array.from({ length: 1 + int(r, 4) }, () => `${pick(r, keys)}=${r() < 0.2 ? pick(r, ['%', '%ZZ', '%00', '%E0%A4%A', '']) : enc(nastyString(r))}`);
  if (r() < 0.05) parts.push('limit=1&limit=2&limit=x');
  return parts.join('&');
}

interface Route {
  base: 'api' | 'dashboard' | 'public';
  method: string;
  path: (r: Rand) => string;
  body: boolean;
}

const API: Route[] = [
  { base: 'api', method: 'POST', path: () => '/payment/create', body: true },
  { base: 'api', method: 'GET', path: (r) => `/payment/list?${nastyQuery(r)}`, body: false },
  { base: 'api', method: 'DELETE', path: (r) => `/payment/${nastyPathParam(r)}/cancel`, body: false },
  { base: 'api', method: 'GET', path: (r) => `/payment/get/${nastyPathParam(r)}`, body: false },
  { base: 'api', method: 'POST', path: () => '/payment/multiple_transfer/create', body: true },
  { base: 'api', method: 'POST', path: () => '/payment/multiple_transfer/calculate', body: true },
  { base: 'api', method: 'GET', path: (r) => `/transaction/list?${nastyQuery(r)}`, body: false },
  { base: 'api', method: 'GET', path: (r) => `/transaction/${nastyPathParam(r)}`, body: false },
  { base: 'api', method: 'GET', path: (r) => `/merchant?${nastyQuery(r)}`, body: false },
  { base: 'api', method: 'GET', path: (r) => `/rates?currency=${enc(nastyString(r))}`, body: false },
  { base: 'api', method: 'GET', path: (r) => `/${enc(nastyString(r))}`, body: false },
];

const DASHBOARD: Route[] = [
  { base: 'dashboard', method: 'GET', path: (r) => `/invoices?${nastyQuery(r)}`, body: false },
  { base: 'dashboard', method: 'POST', path: () => '/invoices', body: true },
  { base: 'dashboard', method: 'GET', path: (r) => `/invoices/${nastyPathParam(r)}`, body: false },
  { base: 'dashboard', method: 'POST', path: (r) => `/invoices/${nastyPathParam(r)}/cancel`, body: true },
  { base: 'dashboard', method: 'POST', path: () => '/payouts', body: true },
  { base: 'dashboard', method: 'POST', path: () => '/payouts/estimate', body: true },
  { base: 'dashboard', method: 'GET', path: (r) => `/transactions?${nastyQuery(r)}`, body: false },
  { base: 'dashboard', method: 'GET', path: (r) => `/webhooks?${nastyQuery(r)}`, body: false },
  { base: 'dashboard', method: 'POST', path: (r) => `/webhooks/${nastyPathParam(r)}/resend`, body: true },
  { base: 'dashboard', method: 'GET', path: () => '/settings', body: false },
  { base: 'dashboard', method: 'PATCH', path: () => '/settings', body: true },
  { base: 'dashboard', method: 'POST', path: () => '/settings/ip-whitelist', body: true },
  { base: 'dashboard', method: 'DELETE', path: (r) => `/settings/ip-whitelist?${nastyQuery(r)}`, body: false },
  { base: 'dashboard', method: 'POST', path: () => '/settings/password', body: true },
  { base: 'dashboard', method: 'POST', path: () => '/keys', body: true },
  { base: 'dashboard', method: 'DELETE', path: (r) => `/keys/${nastyPathParam(r)}`, body: false },
  { base: 'dashboard', method: 'GET', path: (r) => `/audit?${nastyQuery(r)}`, body: false },
  { base: 'dashboard', method: 'GET', path: (r) => `/audit/export?${nastyQuery(r)}`, body: false },
];

const PUBLIC: Route[] = [
  { base: 'public', method: 'GET', path: (r) => `/payment/${nastyPathParam(r)}/status?k=${enc(nastyString(r))}`, body: false },
  { base: 'public', method: 'POST', path: (r) => `/payment/${nastyPathParam(r)}/devnet-pay`, body: true },
];

const ALL = [...API, ...DASHBOARD, ...PUBLIC];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** One raw request line and headers, for what an HTTP client library would refuse to send. */
function rawRequest(port: number, text: string): Promise<{ status: number; body: string; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (answer += d));
    const done = () => {
      const [head = '', ...rest] = answer.split('\r\n\r\n');
      let body = rest.join('\r\n\r\n');
      if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n(\r\n)?$/, '');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body, head });
    };
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', (err) => (answer ? done() : reject(err)));
    socket.write(text, 'latin1');
  });
}

describe(`fuzz: ${COUNT} generated bad inputs, seed ${SEED}`, () => {
  let app: TestApp;
  let devnet: DevnetProcess;
  let apiKey = '';
  let cookie = '';

  before(async () => {
    // Payout estimates simulate on the chain: a devnet with a funded gas wallet, so they answer 200 or 4xx, not 503.
    devnet = await startDevnetProcess({ blockMs: 200, solidifiedDepth: 2 });
    app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
    await devnet.pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '1000', 'TRX');
    // The API merchant and the dashboard merchant differ, so a whitelist rule the fuzzer adds in the dashboard does not lock out the API calls.
    apiKey = (await app.createMerchant()).key;
    const email = `fuzz-${randomBytes(4).toString('hex')}@example.com`;
    await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const jar = new Map<string, string>();
    const keep = (h: string | string[] | undefined) => {
      for (const line of Array.isArray(h) ? h : h ? [h] : []) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        if (eq > 0) jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
    };
    const csrf = await httpRequest(`${app.baseUrl}/api/auth/csrf`);
    keep(csrf.headers['set-cookie']);
    const signIn = await httpRequest(`${app.baseUrl}/api/auth/callback/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: new URLSearchParams({ csrfToken: csrf.json.csrfToken, email, password: PASSWORD, json: 'true' }).toString(),
    });
    keep(signIn.headers['set-cookie']);
    cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    assert.equal((await httpRequest(`${app.baseUrl}/dashboard/api/settings`, { headers: { cookie } })).status, 200, 'signed in');
  });
  after(async () => {
    await app?.stop();
    await devnet?.stop();
  });

  it('never answers 5xx, and every error is JSON with a detail', { timeout: 600_000 }, async () => {
    const r = prng(SEED);
    const port = Number(new URL(app.baseUrl).port);
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    let sent = 0;

    // Each case is drawn in order from the PRNG before any is sent, so the inputs do not depend on timing.
    const cases = Array.from({ length: COUNT }, (_, i) => {
      if (r() < 0.1) {
        const method = pick(r, ['TRACE', 'TRACK', 'PROPFIND', 'MOVE', 'FOO', 'get', 'CONNECT', 'GET', 'POST']);
        const target = pick(r, ['/v1/api/payment/list', '/dashboard/api/settings', '/payment/1/status', '/dashboard/api/nowhere', `/v1/api/payment/get/${pick(r, ['%', '%E0%A4%A', '%C0%AF', '%ff', '%00'])}`, `/v1/api/payment/list?search=${'a'.repeat(9000)}`]);
        const header = r() < 0.2 ? `X-Big: ${'h'.repeat(20_000)}\r\n` : '';
        return { i, raw: `${method} ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: ${apiKey}\r\n${header}Connection: close\r\n\r\n` };
      }
      const route = pick(r, ALL);
      const method = r() < 0.1 ? pick(r, METHODS) : route.method;
      const path = route.path(r);
      const body = route.body || r() < 0.1 ? nastyBody(r) : undefined;
      const headers: Record<string, string> = {};
      const contentType = r() < 0.1 ? pick(r, ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', '']) : 'application/json';
      if (body !== undefined && contentType) headers['content-type'] = contentType;
      // Framed, so the server reads it as this request's body whatever the method (Node's client sends GET bodies unframed).
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      if (route.base === 'api') {
        const auth = r() < 0.1 ? pick(r, ['', 'Bearer', 'Bearer x', `Token ${apiKey}x`, '\u00ff', 'a'.repeat(5000)]) : apiKey;
        if (auth) headers.authorization = auth;
      }
      if (route.base === 'dashboard') {
        if (r() > 0.05) headers.cookie = cookie;
        headers['sec-fetch-site'] = r() < 0.1 ? pick(r, ['cross-site', 'same-site', 'none']) : 'same-origin';
        if (r() < 0.1) headers['x-confirm-password'] = nastyString(r).replace(/[^\x20-\x7e]/g, '');
      }
      const url = `${app.baseUrl}${route.base === 'api' ? '/v1/api' : route.base === 'dashboard' ? '/dashboard/api' : ''}${path}`;
      return { i, method, url, body, headers };
    });

    const describeCase = (c: (typeof cases)[number]) => ('raw' in c ? `raw ${JSON.stringify(c.raw!.slice(0, 120))}` : `${c.method} ${c.url.slice(0, 160)} body=${JSON.stringify(c.body?.slice(0, 120))}`);
    const check = (c: (typeof cases)[number], status: number, contentType: string, text: string) => {
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      const where = `case ${c.i} (FUZZ_SEED=${SEED}): ${describeCase(c)} → ${status} ${text.slice(0, 160)}`;
      if (status >= 500 || status === 0) return failures.push(where);
      if (status < 400 || status === 204 || ('method' in c && c.method === 'HEAD')) return;
      // Node's client resolves dot segments before sending (/payment/%2e%2e/status goes out as /status): a page path then, whose 404 is HTML.
      if ('url' in c && !/^\/(v1\/api|dashboard\/api|payment\/[^/]+\/(status|devnet-pay))(\/|$)/.test(new URL(c.url!).pathname)) return;
      if (!/application\/json/.test(contentType)) return failures.push(`not JSON: ${where}`);
      try {
        if (typeof (JSON.parse(text) as { detail?: unknown }).detail !== 'string') failures.push(`no detail: ${where}`);
      } catch {
        failures.push(`bad JSON: ${where}`);
      }
    };

    const queue = [...cases];
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          sent++;
          if ('raw' in c) {
            const res = await rawRequest(port, c.raw!);
            check(c, res.status, /content-type: ([^\r\n]*)/i.exec(res.head)?.[1] ?? '', res.body);
          } else {
            const res = await httpRequest(c.url, { method: c.method, headers: c.headers, body: c.body }).catch((err: Error) => ({ status: 0, headers: {} as Record<string, string>, text: `no answer: ${err.message}` }));
            check(c, res.status, String(res.headers['content-type'] ?? ''), res.text);
          }
        }
      }),
    );
    const summary = [...byStatus].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(`fuzz: ${sent} requests, seed ${SEED}: ${summary}`);
    assert.ok(sent >= 2000, `at least 2,000 requests, sent ${sent}`);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} bad answers of ${sent}`);
  });
});
