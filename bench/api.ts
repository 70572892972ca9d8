/**
 * The merchant API under load, on a merchant with BENCH_INVOICES (default 1,000,000) invoices
 * (issue 16). `npm run bench:api`; needs PostgreSQL at TEST_DATABASE_URL (or DATABASE_URL).
 *
 * 1. A fresh, migrated database; one merchant and its API key through lib/; then the invoices,
 *    their currency rows and a transaction for every tenth invoice, by bulk SQL (generate_series).
 * 2. `npm run build` (skipped with BENCH_NO_BUILD=1 when a current build exists), then the web process as
 *    `npm start` runs it (scripts/run.ts: dist/server.mjs, NODE_ENV=production, WEB_CONCURRENCY = the
 *    core count unless set, no HD_MNEMONIC), no worker.
 * 3. A reference beside it: plain node:http + pg doing the same SQL for the same request
 *    (API-key lookup + the query), no framework.
 * 4. autocannon drives each endpoint, app then reference, at BENCH_CONNECTIONS (16) for
 *    BENCH_SECONDS (5) each, and every list variant for its latency.
 *
 * BENCH_ONLY=endpoints (or list) runs only the endpoints' throughput (or the list variants).
 *
 * BENCH_VERSUS=<another checkout> (one with its node_modules and its `next build`) also starts
 * that checkout's web process on the same database and measures the two by turns, app then the
 * other, BENCH_ROUNDS (3) times per endpoint and list variant (odd rounds the other first), so a before/after comparison does
 * not depend on how busy the machine was during each run: `ratio_vs_versus{endpoint=...}=` is the
 * median of the rounds' app/other throughput ratios, `list_p99_ms{<variant>,target=versus}=` the
 * other's p99 beside the app's (both the median of the rounds' p99s). BENCH_VERSUS_FROM_SOURCE=1
 * runs the other checkout's server.ts through tsx instead of its bundle: BENCH_VERSUS=. then
 * compares built output with the sources it was built from. By turns it also prints
 * `cpu_us_per_request{endpoint=...,target=app|versus}=` (CPU time of the web process tree over the
 * run, from /proc, per request answered) and `cpu_ratio_vs_versus{endpoint=...}=`: CPU moves far
 * less with the machine's steal time than throughput does. BENCH_ENDPOINTS=merchant,not_found
 * limits the endpoints.
 *
 * Prints, one line each, `rps{endpoint=...,target=app|reference}=`, `ratio_vs_reference{endpoint=...}=`,
 * `create_rps{conns=16}=` and `list_p99_ms{<variant>}=`. list_p99_ms is the latency of one
 * request, measured with one connection (BENCH_LIST_CONNECTIONS) so it is the query's time, not
 * a queue of 16; `list_p99_ms_c16{default}` gives the default list under the full concurrency.
 * `list_first_ms{search=...}` is the first request of each search, which counts in full.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { BUNDLE_DIR, staleBundleReason } from '../scripts/bundle';
import { freePort, TEST_MNEMONIC } from '../test/helpers/app';

const ROOT = path.resolve(import.meta.dirname, '..');
const INVOICES = Number(process.env.BENCH_INVOICES ?? 1_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const LIST_CONNECTIONS = Number(process.env.BENCH_LIST_CONNECTIONS ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LIST_SECONDS = Number(process.env.BENCH_LIST_SECONDS ?? 3);
// `endpoints` or `list` runs only that part (both by default).
const ONLY = process.env.BENCH_ONLY ?? '';
const VERSUS = process.env.BENCH_VERSUS ? path.resolve(process.env.BENCH_VERSUS) : undefined;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// BENCH_ENDPOINTS=merchant,not_found measures only those endpoints by turns.
const ENDPOINTS = process.env.BENCH_ENDPOINTS?.split(',');
if (process.env.DATABASE_URL && !process.env.TEST_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;

const env: Record<string, string> = {
  MASTER_KEY: randomBytes(32).toString('hex'),
  NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
  HD_MNEMONIC: TEST_MNEMONIC,
  RATES_PROVIDER: 'fixed',
  RATES_FIXED_TRX_USD: '0.25',
  RATES_FIXED_USDT_USD: '1',
  // The benchmark measures throughput, not the per-key creation limit.
  INVOICE_CREATE_RATE_PER_MINUTE: '100000000',
  LOG_LEVEL: 'warn',
};
Object.assign(process.env, env, { DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createTestDatabase } = await import('../test/helpers/db');
const { createPrisma } = await import('@/lib/db/client');
const { createMerchant } = await import('@/lib/merchants/service');
const { hashApiKey, issueApiKey } = await import('@/lib/auth/apiKeys');

const t0 = Date.now();
const database = await createTestDatabase();
const prisma = createPrisma(database.url);
const children: ChildProcess[] = [];
let reference: ReturnType<typeof createServer> | undefined;
const pool = new pg.Pool({ connectionString: database.url, max: 10 });

try {
  const merchant = await createMerchant(prisma, { email: 'api-bench@example.com', targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
  const key = await issueApiKey(prisma, merchant.id, 'bench');
  await prisma.$disconnect();
  let t = Date.now();
  await load(merchant.id);
  console.log(`# loaded ${INVOICES} invoices (+ currency rows, transactions) in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  if (process.env.BENCH_NO_BUILD !== '1' || !existsSync(path.join(ROOT, '.next', 'BUILD_ID')) || staleBundleReason(ROOT) !== null) {
    t = Date.now();
    await run('npm', ['run', 'build'], { NEXT_TELEMETRY_DISABLED: '1' });
    console.log(`# npm run build in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const appPort = await freePort();
  const appPid = await startWeb(appPort, database.url);
  const versusPort = VERSUS ? await freePort() : undefined;
  const versusPid = VERSUS ? await startWeb(versusPort!, database.url, VERSUS, process.env.BENCH_VERSUS_FROM_SOURCE === '1') : undefined;
  const refPort = await freePort();
  reference = await startReference(refPort);
  const sample = await pool.query<{ id: number; address: string; order_id: string }>('SELECT id, address, order_id FROM invoices WHERE merchant_id = $1 ORDER BY id LIMIT 1 OFFSET $2', [merchant.id, Math.floor(INVOICES / 2)]);
  const { id: sampleId, address: sampleAddress, order_id: sampleOrderId } = sample.rows[0]!;

  const app = `http://127.0.0.1:${appPort}/v1/api`;
  const ref = `http://127.0.0.1:${refPort}/v1/api`;
  const headers = { authorization: key, 'content-type': 'application/json' };
  const createBody = JSON.stringify({ type: 'SINGLE', amount: 50, currencies: ['TRX'], description: 'bench' });
  const endpoints: { name: string; path: string; method?: 'POST'; body?: string; status: number }[] = [
    { name: 'merchant', path: '/merchant', status: 200 },
    { name: 'get', path: `/payment/get/${sampleId}`, status: 200 },
    { name: 'list', path: '/payment/list', status: 200 },
    { name: 'create', path: '/payment/create', method: 'POST', body: createBody, status: 200 },
    { name: 'not_found', path: '/nothing-here', status: 404 },
  ];
  const versus = versusPort ? `http://127.0.0.1:${versusPort}/v1/api` : undefined;
  // Warm them all (Next compiles nothing in production, but the first calls fill pools and caches).
  for (const e of endpoints) for (const base of [app, ref, ...(versus ? [versus] : [])]) await cannon(base + e.path, { ...e, headers, connections: 4, duration: 1 });
  if (versus) {
    await compareByTurns({ base: app, pid: appPid }, { base: versus, pid: versusPid! }, endpoints.filter((e) => !ENDPOINTS || ENDPOINTS.includes(e.name)), headers);
  }
  for (const e of ONLY === 'list' || versus ? [] : endpoints) {
    const a = await cannon(app + e.path, { ...e, headers, connections: CONNECTIONS, duration: SECONDS });
    const r = await cannon(ref + e.path, { ...e, headers, connections: CONNECTIONS, duration: SECONDS });
    console.log(`rps{endpoint=${e.name},target=app}=${a.rps.toFixed(0)}${a.bad ? ` # ${a.bad} unexpected answers` : ''}`);
    console.log(`rps{endpoint=${e.name},target=reference}=${r.rps.toFixed(0)}${r.bad ? ` # ${r.bad} unexpected answers` : ''}`);
    console.log(`ratio_vs_reference{endpoint=${e.name}}=${(a.rps / r.rps).toFixed(2)}`);
    if (e.name === 'create') console.log(`create_rps{conns=${CONNECTIONS}}=${a.rps.toFixed(0)}`);
    if (e.name === 'list') console.log(`list_p99_ms_c${CONNECTIONS}{default}=${a.p99}`);
  }
  if (ONLY !== 'list' && !versus) {
    const c1 = await cannon(app + '/payment/create', { ...endpoints[3]!, headers, connections: 1, duration: SECONDS });
    console.log(`create_rps{conns=1}=${c1.rps.toFixed(0)}`);
  }

  // The creations above left thousands of new rows. Production's autovacuum (migration 0053: after
  // 0.5 % inserts) would have vacuumed invoices since; a server with autovacuum off (this
  // machine's CI configuration) gets that VACUUM here, or deep pages read the table at random.
  if ((await pool.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]?.autovacuum === 'off') {
    await pool.query('VACUUM (ANALYZE) invoices');
    console.log('# autovacuum is off on this server: VACUUM (ANALYZE) invoices before the list variants, as autovacuum would have');
  }
  const variants: [string, string][] = [
    ['default', ''],
    ['type=SINGLE', 'type=SINGLE'],
    ['type=MULTIPLE', 'type=MULTIPLE'],
    ['status=ACTIVE', 'status=ACTIVE'],
    ['status=COMPLETED', 'status=COMPLETED'],
    ['status=AML_FAILED', 'status=AML_FAILED'],
    ['currency=TRX', 'currency=TRX'],
    ['currency=USDT', 'currency=USDT'],
    ['currency=TRX,USDT', 'currency=TRX,USDT'],
    ['date_from,date_to', `date_from=${dayAgo(120)}&date_to=${dayAgo(100)}`],
    ['status=COMPLETED&currency=TRX&type=SINGLE', 'status=COMPLETED&currency=TRX&type=SINGLE'],
    ...['created_at', '-created_at', 'amount', '-amount', 'status', '-status'].map((o): [string, string] => [`ordering=${o}`, `ordering=${o}`]),
    ['currency=TRX,USDT&ordering=amount', 'currency=TRX,USDT&ordering=amount'],
    ['status=TIMEOUT&ordering=-amount', 'status=TIMEOUT&ordering=-amount'],
    ['search=id', `search=${sampleId}`],
    ['search=address', `search=${sampleAddress.slice(5, 20)}`],
    ['search=description', 'search=coffee'],
    ['search=order_text', 'search=ord-99999'],
    ['search=order_id', `search=${sampleOrderId}`],
    ['search=rare_text', 'search=no-such-words'],
    ['search=status', 'search=canceled'],
    ['search=currency', 'search=usdt'],
    ['limit=300', 'limit=300'],
    ['offset=900000', 'offset=900000'],
    ['offset=900000&ordering=amount', 'offset=900000&ordering=amount'],
  ];
  if (versus && ONLY !== 'endpoints') await compareListByTurns(app, versus, variants, headers);
  for (const [name, query] of ONLY === 'endpoints' || versus ? [] : variants) {
    // A search's count is kept per term (lib/invoices/searchCount.ts): its first request counts in
    // full, the later ones (all but one in the p99 below) from the kept count. The first is timed apart.
    if (name.startsWith('search=')) {
      const t = performance.now();
      const first = await fetch(`${app}/payment/list?${query}`, { headers });
      await first.arrayBuffer();
      console.log(`list_first_ms{${name}}=${(performance.now() - t).toFixed(0)}${first.status === 200 ? '' : ` # status ${first.status}`}`);
    }
    let r = await cannon(`${app}/payment/list?${query}`, { headers, connections: LIST_CONNECTIONS, duration: LIST_SECONDS, status: 200 });
    // A request slower than the window completes none in it: measure 5 requests, however long they take.
    if (r.total < 5) r = await cannon(`${app}/payment/list?${query}`, { headers, connections: LIST_CONNECTIONS, duration: 0, amount: 5, status: 200 });
    console.log(`list_p99_ms{${name}}=${r.p99} # p50 ${r.p50} ms${r.bad ? ` # ${r.bad} unexpected answers` : ''}${r.total < 20 ? ` # ${r.total} requests` : ''}`);
  }
  console.log(`# total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  reference?.close();
  await pool.end();
  await database.drop();
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/**
 * CPU time (user + system) of a process and its descendants (the cluster's web processes), in
 * microseconds, from /proc: steal time on a shared machine moves it far less than throughput.
 */
function treeCpuUs(root: number): number {
  let ticks = 0;
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The fields after the command's closing parenthesis: state is the first, utime the 12th, stime the 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      if (children) pending.push(...children.split(' ').map(Number));
    } catch {
      // Gone meanwhile.
    }
  }
  // USER_HZ is 100 on Linux.
  return ticks * 10_000;
}

/**
 * BENCH_VERSUS: each endpoint's throughput and CPU per request, the app and the other checkout
 * by turns.
 */
async function compareByTurns(app: { base: string; pid: number }, versus: { base: string; pid: number }, endpoints: { name: string; path: string; method?: 'POST'; body?: string; status: number }[], headers: Record<string, string>) {
  for (const e of ONLY === 'list' ? [] : endpoints) {
    const rounds: { a: number; v: number; aCpu: number; vCpu: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Odd rounds measure the other first, so neither always runs on a machine the first one warmed.
      const run = async (target: { base: string; pid: number }) => {
        const before = treeCpuUs(target.pid);
        const r = await cannon(target.base + e.path, { ...e, headers, connections: CONNECTIONS, duration: SECONDS });
        return { ...r, cpuUs: (treeCpuUs(target.pid) - before) / Math.max(1, r.total) };
      };
      let a: Awaited<ReturnType<typeof run>>;
      let v: Awaited<ReturnType<typeof run>>;
      if (i % 2 === 0) {
        a = await run(app);
        v = await run(versus);
      } else {
        v = await run(versus);
        a = await run(app);
      }
      if (a.bad || v.bad) console.log(`# ${e.name}: ${a.bad} / ${v.bad} unexpected answers`);
      rounds.push({ a: a.rps, v: v.rps, aCpu: a.cpuUs, vCpu: v.cpuUs });
    }
    console.log(`rps{endpoint=${e.name},target=app}=${median(rounds.map((r) => r.a)).toFixed(0)}`);
    console.log(`rps{endpoint=${e.name},target=versus}=${median(rounds.map((r) => r.v)).toFixed(0)}`);
    console.log(`ratio_vs_versus{endpoint=${e.name}}=${median(rounds.map((r) => r.a / r.v)).toFixed(2)} # rounds ${rounds.map((r) => (r.a / r.v).toFixed(2)).join(' ')}`);
    console.log(`cpu_us_per_request{endpoint=${e.name},target=app}=${median(rounds.map((r) => r.aCpu)).toFixed(0)}`);
    console.log(`cpu_us_per_request{endpoint=${e.name},target=versus}=${median(rounds.map((r) => r.vCpu)).toFixed(0)}`);
    console.log(`cpu_ratio_vs_versus{endpoint=${e.name}}=${median(rounds.map((r) => r.aCpu / r.vCpu)).toFixed(2)} # rounds ${rounds.map((r) => (r.aCpu / r.vCpu).toFixed(2)).join(' ')}`);
  }
}

/** BENCH_VERSUS: each list variant's p99 at one connection, the app and the other checkout by turns. */
async function compareListByTurns(app: string, versus: string, variants: [string, string][], headers: Record<string, string>) {
  for (const [name, query] of variants) {
    const p99 = { a: [] as number[], v: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const order = [[app, p99.a], [versus, p99.v]] as const;
      for (const [base, into] of i % 2 === 0 ? order : [...order].reverse()) {
        const r = await cannon(`${base}/payment/list?${query}`, { headers, connections: LIST_CONNECTIONS, duration: LIST_SECONDS, status: 200 });
        into.push(r.p99);
      }
    }
    console.log(`list_p99_ms{${name}}=${median(p99.a)}`);
    console.log(`list_p99_ms{${name},target=versus}=${median(p99.v)}`);
  }
}

function dayAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

async function cannon(url: string, o: { method?: 'POST'; body?: string; headers: Record<string, string>; connections: number; duration: number; amount?: number; status: number }) {
  const result = await autocannon({
    url, method: o.method ?? 'GET', body: o.body, headers: o.headers, connections: o.connections,
    ...(o.amount ? { amount: o.amount, timeout: 120 } : { duration: o.duration }),
  });
  const counts = result as unknown as Record<string, number>;
  const good = o.status === 200 ? counts['2xx'] : counts['4xx'];
  return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, total: result.requests.total, bad: result.requests.total - (good ?? 0) + result.errors };
}

/**
 * The merchant's invoices by bulk SQL: one every 30 s back from now, a mix of types, statuses,
 * tokens and amounts as a shop would have; `ord-<n>` in each description.
 */
async function load(merchantId: number): Promise<void> {
  // Secondary indexes are dropped for the bulk insert and rebuilt after from their own definitions
  // (pg_indexes), as a bulk import would: building one is much faster than a million inserts into it.
  const { rows: indexes } = await pool.query<{ name: string; def: string }>(`
    SELECT indexname AS name, indexdef AS def FROM pg_indexes i
     WHERE tablename = 'invoices' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`);
  for (const i of indexes) await pool.query(`DROP INDEX "${i.name}"`);
  await pool.query(`
    INSERT INTO invoices (merchant_id, type, status, amount_usd, currencies, order_id, address, address_index, private_key_enc,
                          description, expired_at, created_at, updated_at)
    SELECT $1,
           (CASE WHEN g % 10 = 0 THEN 'MULTIPLE' ELSE 'SINGLE' END)::"InvoiceType",
           (CASE WHEN h < 2 THEN 'ACTIVE' WHEN h < 60 THEN 'COMPLETED' WHEN h < 85 THEN 'TIMEOUT' WHEN h < 92 THEN 'CANCELED'
                 WHEN h < 95 THEN 'ERROR' WHEN h < 97 THEN 'OVERPAID' WHEN h < 99 THEN 'UNDERPAID' ELSE 'AML_FAILED' END)::"InvoiceStatus",
           CASE WHEN g % 10 = 0 THEN NULL ELSE 1 + (g::bigint * 7919 % 1000000) / 100.0 END,
           (CASE g % 3 WHEN 0 THEN '{TRX}' WHEN 1 THEN '{USDT}' ELSE '{TRX,USDT}' END)::"Currency"[],
           'ord-' || g,
           'T' || substr(translate(encode(sha256(g::text::bytea), 'base64'), '+/=0OIl', 'abcdefg'), 1, 33),
           g, 'bench:no-key', (ARRAY['coffee', 'tea', 'cake', 'sandwich', 'juice'])[1 + g % 5] || ' for order ord-' || g,
           created + interval '1 hour', created, created
    FROM (SELECT g, (g::bigint * 2654435761) % 100 AS h, now() - ($2::int - g) * interval '30 seconds' AS created
          FROM generate_series(1, $2::int) g) s`, [merchantId, INVOICES]);
  for (const i of indexes) await pool.query(i.def);
  // New invoices take indexes above the loaded ones (migration 0041).
  await pool.query(`SELECT setval('invoice_address_index_seq', $1::int + 1, false)`, [INVOICES]);
  await pool.query(`
    INSERT INTO invoice_currencies (invoice_id, currency, rate_usd, due_units, fee_units, received_units, forwarded_units)
    SELECT i.id, c, r, (COALESCE(i.amount_usd, 0) * 1000000 / r)::bigint, (COALESCE(i.amount_usd, 0) * 10000 / r)::bigint,
           CASE WHEN i.status = 'COMPLETED' THEN (COALESCE(i.amount_usd, 0) * 1000000 / r)::bigint ELSE 0 END, 0
    FROM invoices i, unnest(i.currencies) c, LATERAL (SELECT CASE c WHEN 'TRX' THEN 0.25 ELSE 1 END AS r) rate
    WHERE i.merchant_id = $1`, [merchantId]);
  await pool.query(`
    INSERT INTO transactions (merchant_id, invoice_id, type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, payment_state, created_at, updated_at)
    SELECT $1, i.id, 'PAYMENT', md5(i.id::text), md5(i.id::text) || ':trx', 'TFromAddressFromAddressFromAddres', i.address,
           (COALESCE(i.amount_usd, 1) * 4000000)::bigint, 'TRX', 'SETTLED', i.created_at + interval '1 minute', i.created_at + interval '1 minute'
    FROM invoices i WHERE i.merchant_id = $1 AND i.id % 10 = 1`, [merchantId]);
  await pool.query('VACUUM ANALYZE invoices');
  await pool.query('VACUUM ANALYZE invoice_currencies');
  await pool.query('VACUUM ANALYZE transactions');
}

function run(cmd: string, args: string[], extra: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed (${code})`))));
  });
}

/**
 * The web process as scripts/run.ts starts it in production (`npm start`): the bundle in dist/
 * (scripts/bundle.ts). A checkout without one (from before issue 25), or with
 * `fromSource` (BENCH_VERSUS_FROM_SOURCE=1 for the other checkout), runs server.ts through tsx.
 */
async function startWeb(port: number, databaseUrl: string, cwd = ROOT, fromSource = false): Promise<number> {
  // As scripts/run.ts: one process per core unless WEB_CONCURRENCY says otherwise, and no mnemonic.
  const { HD_MNEMONIC: _mnemonic, ...webEnv } = { ...process.env, ...env };
  const bundle = path.join(cwd, BUNDLE_DIR, 'server.mjs');
  const args = !fromSource && existsSync(bundle)
    ? ['--import', path.join(cwd, BUNDLE_DIR, 'exitWithParent.mjs'), '--enable-source-maps', bundle]
    : ['--import', 'tsx', '--import', './scripts/exitWithParent.ts', 'server.ts'];
  console.log(`# web of ${cwd}: node ${args.join(' ')}`);
  const child = spawn(process.execPath, args, {
    cwd,
    env: { WEB_CONCURRENCY: String(availableParallelism()), ...webEnv, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error('web server exited');
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false)) return child.pid!;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error('web server did not start');
}

/**
 * The bare reference: node:http + pg, the same SQL as the app for each endpoint (API-key lookup
 * with its merchant, then the endpoint's queries), JSON out, nothing else.
 */
async function startReference(port: number) {
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
  // The app's count for an unfiltered list: the trigger-kept counters (migration 0040).
  const LIST_COUNT = 'SELECT COALESCE(sum(n), 0) AS count FROM invoice_counts WHERE merchant_id = $1';
  const INVOICE_PAGE = `SELECT i.*, m.email FROM invoices i JOIN merchants m ON m.id = i.merchant_id WHERE i.merchant_id = $1 ORDER BY i.created_at DESC, i.id DESC LIMIT 10 OFFSET 0`;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const auth = await pool.query('SELECT k.id, k.revoked_at, m.* FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = $1', [hashApiKey(req.headers.authorization ?? '')]);
    const merchant = auth.rows[0];
    if (!merchant || merchant.revoked_at) return send(res, 403, { detail: 'Invalid API key' });
    const url = req.url ?? '';
    if (url === '/v1/api/merchant') return send(res, 200, merchant);
    const get = /^\/v1\/api\/payment\/get\/(\d+)$/.exec(url);
    if (get) {
      const inv = await pool.query('SELECT i.*, m.email FROM invoices i JOIN merchants m ON m.id = i.merchant_id WHERE i.id = $1 AND i.merchant_id = $2', [Number(get[1]), merchant.id]);
      if (!inv.rows[0]) return send(res, 404, { detail: 'No Invoice matches the given query.' });
      const amounts = await pool.query('SELECT * FROM invoice_currencies WHERE invoice_id = $1', [inv.rows[0].id]);
      return send(res, 200, { ...inv.rows[0], amounts: amounts.rows });
    }
    if (url === '/v1/api/payment/list') {
      const [count, page] = await Promise.all([pool.query(LIST_COUNT, [merchant.id]), pool.query(INVOICE_PAGE, [merchant.id])]);
      const amounts = await pool.query('SELECT * FROM invoice_currencies WHERE invoice_id = ANY($1)', [page.rows.map((r) => r.id)]);
      return send(res, 200, { count: Number(count.rows[0].count), results: page.rows, amounts: amounts.rows });
    }
    if (url === '/v1/api/payment/create' && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const body = JSON.parse(raw) as { type: string; amount: number; currencies: string[]; description: string };
      const client = await pool.connect();
      try {
        const { rows } = await client.query(`SELECT nextval('invoice_address_index_seq')::int AS index`);
        const index = rows[0].index;
        const inv = await client.query(
          `INSERT INTO invoices (merchant_id, type, amount_usd, currencies, address, address_index, private_key_enc, description, expired_at, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'ref', $7, now() + interval '1 hour', now(), now()) RETURNING *`,
          [merchant.id, body.type, body.amount, body.currencies, `ref-${merchant.id}-${index}`, index, body.description],
        );
        await client.query('INSERT INTO invoice_currencies (invoice_id, currency, rate_usd, due_units, fee_units) VALUES ($1, $2, 0.25, $3, 0)', [inv.rows[0].id, 'TRX', BigInt(body.amount) * 4_000_000n]);
        return send(res, 200, inv.rows[0]);
      } finally {
        client.release();
      }
    }
    return send(res, 404, { detail: 'Not found.' });
  };
  const server = createServer((req, res) => void handle(req, res).catch((err) => send(res, 500, { detail: String(err) })));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
