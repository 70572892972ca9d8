/**
 * Issue 27, finding 3: rate limits counted in PostgreSQL hold across web processes. Counted in
 * each process's memory, two web processes each let a key create the whole limit (and a client
 * read the public pages twice the limit). The app runs as two web processes (WEB_CONCURRENCY=2,
 * node:cluster); every request goes on a new connection, so the cluster spreads them over both.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createPrisma, sqlPool, type PrismaClient } from '@/lib/db/client';
import { execute, sql } from '@/lib/db/sql';
import { RateLimiter } from '@/lib/rateLimit';
import { startApp, type TestApp } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { waitFor } from '../helpers/wait';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  detail: string | undefined;
}

/** One request on a new connection (no keep-alive), so node:cluster hands it to either web process. */
function send(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', agent: false, localAddress: opts.localAddress, headers: { connection: 'close', ...opts.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let detail: string | undefined;
        try {
          detail = (JSON.parse(text) as { detail?: string }).detail;
        } catch {
          /* an HTML page */
        }
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, detail });
      });
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The pids of the web processes that logged a request to `path` (pino's `pid` in each JSON line). */
function servingPids(output: string, path: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    try {
      const entry = JSON.parse(line) as { msg?: string; path?: string; pid?: number };
      if (entry.msg === 'request' && entry.path === path && entry.pid) pids.add(entry.pid);
    } catch {
      /* not a log line */
    }
  }
  return pids;
}

/**
 * servingPids once both processes' lines are in: each logs a request after answering it, so the
 * last lines can come after the last answer (a CI run read one process of two, 2026-12-06).
 */
function bothServed(app: TestApp, path: string): Promise<Set<number>> {
  return waitFor(`both web processes' request lines for ${path}`, async () => {
    const pids = servingPids(app.output(), path);
    return pids.size >= 2 && pids;
  }, 10_000);
}

describe('rate limits shared by every web process (issue 27, finding 3)', () => {
  let app: TestApp;
  const LIMIT = 3;

  before(async () => {
    // A small limit (one request every 20 s refills), so the requests below fall well inside one refill.
    app = await startApp({ WEB_CONCURRENCY: '2', INVOICE_CREATE_RATE_PER_MINUTE: String(LIMIT), PUBLIC_PAGE_RATE_PER_MINUTE: String(LIMIT) });
  });
  after(async () => {
    await app?.stop();
  });

  it('one API key creates LIMIT invoices over both processes; the next ones get 429 with Retry-After', async () => {
    const { key } = await app.createMerchant();
    const body = JSON.stringify({ type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    const answers = await Promise.all(
      Array.from({ length: 4 * LIMIT }, () => send(`${app.apiBase}/payment/create`, { method: 'POST', body, headers: { authorization: key, 'content-type': 'application/json' } })),
    );
    assert.equal((await bothServed(app, '/v1/api/payment/create')).size, 2, 'both web processes answered');
    assert.equal(answers.filter((a) => a.status === 200).length, LIMIT, JSON.stringify(answers));
    const refused = answers.filter((a) => a.status !== 200);
    assert.equal(refused.length, 3 * LIMIT);
    for (const a of refused) {
      assert.equal(a.status, 429);
      assert.match(a.detail ?? '', new RegExp(`^Too many invoices created: the limit is ${LIMIT} a minute per API key\\. Try again in (\\d+) s\\.$`));
      const wait = Number(a.retryAfter);
      assert.ok(wait >= 1 && wait <= 60 / LIMIT, `Retry-After ${a.retryAfter}`);
      assert.equal(a.detail, `Too many invoices created: the limit is ${LIMIT} a minute per API key. Try again in ${wait} s.`);
    }
    // Another key has its own limit.
    const other = await app.createMerchant();
    assert.equal((await send(`${app.apiBase}/payment/create`, { method: 'POST', body, headers: { authorization: other.key, 'content-type': 'application/json' } })).status, 200);
  });

  it('one address reads the public payment pages LIMIT times over both processes', async () => {
    const { key } = await app.createMerchant();
    const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(created.status, 200, created.text);
    const url = `${app.baseUrl}/payment/${created.json.id}/status`;
    const answers = await Promise.all(Array.from({ length: 4 * LIMIT }, () => send(url, { localAddress: '127.0.0.7' })));
    assert.equal((await bothServed(app, `/payment/${created.json.id}/status`)).size, 2, 'both web processes answered');
    assert.equal(answers.filter((a) => a.status !== 429).length, LIMIT, JSON.stringify(answers));
    for (const a of answers.filter((x) => x.status === 429)) {
      assert.equal(a.detail, `Too many requests from this address; try again in ${a.retryAfter} s.`);
    }
    // Another address is not limited by it.
    assert.notEqual((await send(url, { localAddress: '127.0.0.8' })).status, 429);
  });
});

describe('RateLimiter on PostgreSQL', () => {
  let database: TestDatabase;
  let prisma: PrismaClient;

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
  });
  after(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('two limiters (two processes) share one bucket per key: a burst of the limit, then a wait of one interval', async () => {
    const a = new RateLimiter('t', 6, () => sqlPool(prisma));
    const b = new RateLimiter('t', 6, () => sqlPool(prisma));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take('k')));
    assert.equal(results.filter((r) => r === null).length, 6);
    for (const r of results.filter((x) => x !== null)) assert.ok(r >= 1 && r <= 10, `wait ${r}`);
    // A different limit name or key is another bucket.
    assert.equal(await new RateLimiter('u', 6, () => sqlPool(prisma)).take('k'), null);
    assert.equal(await a.take('other'), null);
  });

  it('deletes keys whose time has passed (full buckets) and keeps the others', async () => {
    await execute(prisma, sql`INSERT INTO rate_limits (key, tat_us) VALUES ('old:x', 1), ('old:y', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint + 600000000)`);
    // A new limiter cleans at its first take.
    assert.equal(await new RateLimiter('c', 6, () => sqlPool(prisma)).take('k'), null);
    const keys = async () => (await prisma.rateLimit.findMany({ where: { key: { startsWith: 'old:' } }, select: { key: true } })).map((r) => r.key);
    for (let i = 0; i < 50 && (await keys()).includes('old:x'); i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await keys(), ['old:y']);
  });
});
