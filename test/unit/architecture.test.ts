import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { boundBy, DOORS, writesIn } from './doors';

/**
 * The layering rules of docs/architecture.md, checked over the source so they
 * hold after the next change too. Two kinds are data, each read by one check:
 * - the doors, "this column is written only by its module" (rules d, e, h, i, o, p, q): the table DOORS
 *   of test/unit/doors.ts, one row per door, checked here;
 * - the imports of lib/ (rules a's imports, c and n): dependency-cruiser's rules in
 *   .dependency-cruiser.mjs (the layers of lib/ as LIB_LAYERS), run by `npm run lint`; this test
 *   runs them on a planted tree, so each is shown to fire.
 * (a) lib/ outside lib/http (the HTTP edge) and lib/openapi (which documents the
 *     statuses) names no HTTP status (checked here) and imports nothing of lib/http
 *     (dependency-cruiser, `domain-not-http`): the domain throws AppError with a code
 *     (lib/errors.ts), the edge maps it.
 * (b) process.env is read only by the configuration module, lib/config.ts.
 * (c) lib/ imports neither the framework (next, react) nor app/ or components/ (dependency-cruiser,
 *     `lib-no-framework`).
 * (d) a payment's state is written only by its one door, lib/payments/states.ts (DOORS).
 * (e) a merchant's two balances (balance_sun, activation_balance_sun) are written only by
 *     lib/merchants/balance.ts, which books each change in their ledger (issue 22; DOORS).
 * (f) the dashboard shows a time only through formatTime (components/dashboard/ui.tsx): in UTC,
 *     labelled, never the browser's local time, which the chart and date filters do not use (issue 26).
 * (g) a worker job that scans blocks or tends the energy pool (reads something every worker
 *     shares, then acts on it) is a singleton: it runs on one worker at a time (issue 27,
 *     lib/worker/leader.ts), however many workers share the database.
 * (h) an invoice's network_cost_sun is written only by lib/ledger/networkCost.ts, which folds in
 *     what the ledger's trigger booked (migration 0082), so it is the sum reconcile recomputes (issue 23; DOORS).
 * (i) a send's waiting_reason is written only by noteWaiting (lib/energy/engine.ts), which alerts
 *     once as the send begins to wait (issue 23; DOORS).
 * (j) no zod schema is defined in app/: a route's or page's input and output shapes are its
 *     domain folder's schemas.ts (docs/modules.md), where the OpenAPI document and tests find them (issue 25).
 * (k) no lib/ module calls db() but the few in DB_CALLERS: a use case takes its database client
 *     from its caller, so the same function runs on a transaction's client, the worker's or a
 *     test's (issue 25); a route table's handler is given it as `ctx.db` (issue 39). The process's
 *     client is reached for in app/ (pages and routes), worker/main.ts, scripts/ and those few.
 * (l) lib/ holds module-level mutable state only in lib/singletons.ts: no top-level `let` or `var`,
 *     no object made at the top level (`new Map()`, `new RateLimiter(...)`; a `ReadonlySet` or
 *     `ReadonlyMap` constant is no state), no value kept on `globalThis`. A web process evaluates
 *     lib/ twice (server.ts and Next's bundle), and state outside the one table would silently
 *     exist once per copy (issue 25).
 * (m) a delay is doubled only by backoffMs (lib/backoff.ts): no `2 **`, `Math.pow(2, ...)`, `<<`
 *     or `x = x * 2` beside a delay written by hand, so each retry states its base, cap and jitter
 *     in one place (issue 39).
 * (n) lib/'s folders import each other one way (issue 35): each folder imports at run time only
 *     folders on lower rows of LIB_LAYERS (dependency-cruiser, `lib-layers`; `import type` is
 *     erased; a file at lib/'s top is its own folder), so their graph has no cycle.
 * (o) a refund's state is written only by changeRefundState (lib/refunds/states.ts; DOORS).
 * (p) a payout target's state is written only by changeTargetState (lib/payouts/targets.ts; DOORS).
 * (q) the audit log's rows are written only by recordAudit (lib/audit/record.ts; DOORS).
 * (r) raw SQL is written one way, the `sql` tag of lib/db/sql.ts, whose values are always parameters
 *     (issue 39): none of Prisma's raw-SQL forms (`Prisma.sql`, `Prisma.join`, `Prisma.raw`,
 *     `Prisma.empty`, the tagged `$queryRaw` and `$executeRaw`, their builders imported from Prisma's
 *     runtime) in the source or the tests; `$queryRawUnsafe` and `$executeRawUnsafe` only in
 *     lib/db/sql.ts, the executor on Prisma's client or transaction (`queryRows`, `execute`).
 *     Tests may run fixed text with `$executeRawUnsafe` (DDL, fixtures).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
/** The configuration `npm run lint` gives dependency-cruiser, and its layers of lib/ (low to high). */
const DEPCRUISE_CONFIG = path.join(ROOT, '.dependency-cruiser.mjs');
const { LIB_LAYERS } = (await import(pathToFileURL(DEPCRUISE_CONFIG).href)) as { LIB_LAYERS: readonly (readonly string[])[] };
/** (l) The one module that holds lib/'s process-wide state. */
const STATE_ALLOWED = 'lib/singletons.ts';
const SOURCE_DIRS = ['app', 'lib', 'components', 'worker', 'devnet', 'scripts'];
const ROOT_FILES = ['server.ts', 'next.config.mjs', '.dependency-cruiser.mjs', 'playwright.config.ts', 'prisma.config.ts'];

/** The only readers of process.env besides lib/config.ts, each with its reason. */
const ENV_ALLOWED: Record<string, string> = {
  'lib/config.ts': 'the configuration module itself',
  'scripts/run.ts': 'builds the environment of the web, worker and devnet children it starts',
  'scripts/devEnv.ts': "resolves the local run's environment for scripts/run.ts and the operator commands (npm run reconcile, payment:retry), before any configuration is read",
  'scripts/test.ts': "npm test's phases: hands its environment on to each phase's command, adding only the browser report's file",
  'scripts/testLane.mjs': "a test lane's runner: reads only TEST_FILE_TIMEOUT_MS, how long one test file may run (not the service's configuration)",
  'next.config.mjs': "Next's configuration (NEXT_DIST_DIR, set by the tests; NEXT_SKIP_TYPECHECK, set by npm test; WEB_PRELOAD_ROUTES, read as the server starts), read before any of our code",
  'playwright.config.ts': 'the browser tests\' harness configuration',
  'prisma.config.ts': "the Prisma CLI's configuration",
};

function sourceFiles(dir: string): string[] {
  const full = path.join(ROOT, dir);
  return readdirSync(full).flatMap((name) => {
    const rel = path.join(dir, name);
    if (name === 'generated' || name === 'node_modules') return [];
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx|mjs)$/.test(name) ? [rel.split(path.sep).join('/')] : [];
  });
}

/** The code without comments (a rough cut: enough that a comment citing "a 404" is not a violation). */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
}

/** Module specifiers imported (statically, dynamically or re-exported) by a file. */
function importsOf(code: string): string[] {
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

/** (a): an HTTP status picked from domain code (its imports of lib/http are dependency-cruiser's rule `domain-not-http`). */
function httpViolations(source: string): string[] {
  const code = stripComments(source);
  const found: string[] = [];
  if (/\bApiError\b/.test(code)) found.push('ApiError');
  for (const m of code.matchAll(/\bstatus(?:Code)?\s*[:=]\s*[1-5]\d\d\b/g)) found.push(m[0]);
  for (const m of code.matchAll(/\bnew\s+\w+\(\s*[45]\d\d\b/g)) found.push(m[0]);
  for (const m of code.matchAll(/\w*(?:Error|error|Response|response)\w*\(\s*[45]\d\d\b/g)) found.push(m[0]);
  for (const m of code.matchAll(/\bnew\s+(?:Response|NextResponse)\(|\bResponse\.json\(/g)) found.push(m[0]);
  return found;
}

/** (b) */
function envViolations(source: string): string[] {
  return [...stripComments(source).matchAll(/\bprocess\.env\b/g)].map((m) => m[0]);
}

/** (j): a zod schema built (`z.object(`, `z.string(`, ...), or zod imported for its values, in a file under app/. Types (`z.output<...>`, `import type`) are not schemas. */
function zodSchemaViolations(source: string): string[] {
  const code = stripComments(source);
  const imports = [...code.matchAll(/\bimport\s+(?!type\b)[^;]*?\bfrom\s*['"]zod(?:\/[^'"]*)?['"]/g)].map((m) => m[0].replace(/\s+/g, ' '));
  return [...imports, ...[...code.matchAll(/(?<![.\w])z\s*\.\s*\w+(?:\.\w+)*\s*\(/g)].map((m) => m[0])];
}

/** (k): the lib/ modules that may reach for the process's database client themselves, and why. */
const DB_CALLERS: ReadonlyMap<string, string> = new Map([
  ['lib/db/client.ts', 'it defines db()'],
  ['lib/auth/session.ts', "next-auth calls its callbacks with no context to hand a client: it is sign-in's composition root"],
  ['lib/invoices/creationRate.ts', "the creation limit's counter is the process's, kept once per copy of lib/ (lib/singletons.ts)"],
]);
const mayCallDb = (file: string) => !file.startsWith('lib/') || DB_CALLERS.has(file);
function dbCalls(source: string): string[] {
  return [...stripComments(source).matchAll(/(?<![.\w])db\(\s*\)/g)].map((m) => m[0]);
}

/** (l): module-level state outside lib/singletons.ts, at the top level of a lib/ module. */
function moduleStateViolations(source: string): string[] {
  const code = stripComments(source);
  return [
    ...[...code.matchAll(/^(?:export\s+)?(?:let|var)\s+\w+/gm)].map((m) => m[0]),
    ...[...code.matchAll(/^(?:export\s+)?const\s+\w+\s*(?::(?!\s*Readonly(?:Set|Map)<)[^=]+)?=\s*new\s+[\w.]+/gm)].map((m) => m[0]),
    ...[...code.matchAll(/\bglobalThis\b(?!\.crypto\b)/g)].map((m) => m[0]),
  ];
}

/**
 * (m): a doubling (`2 **`, `Math.pow(2,`, `<<`, `x *= 2`, `x = ... x * 2`) in a statement that names
 * a delay (`...Ms`, `..._MS`, `delay`, `wait`, `backoff`, `retry`, `timeout`, `sleep`, ...). Bit
 * shifts of an address and `2 ** 31` as a bound name none; "two blocks" (`blockMs * 2`) doubles nothing.
 */
const BACKOFF_HOME = 'lib/backoff.ts';
const DOUBLING = /2\s*\*\*|Math\.pow\(\s*2\s*,|<<|[\w.]+\s*\*=\s*2\b(?![.\d])|([\w.]+)\s*=(?!=)[^;=]*?(?<![\w.])\1\s*\*\s*2\b(?![.\d])/g;
const DELAY_WORD = /[a-z\d]Ms\b|[A-Z]_?MS\b|\bms\b|[Dd]elay|DELAY|[Ww]ait|WAIT|[Bb]ackoff|BACKOFF|[Rr]etr|RETR|[Tt]imeout|TIMEOUT|[Ss]leep|SLEEP|[Ss]lowdown|SLOWDOWN|[Ii]nterval|INTERVAL|[Ss]econds|SECONDS/;
function handDoublings(source: string): string[] {
  return stripComments(source)
    .split(/[;{}]/)
    .filter((statement) => DELAY_WORD.test(statement))
    .flatMap((statement) => [...statement.matchAll(DOUBLING)].map((m) => m[0].replace(/\s+/g, ' ')));
}

/** (f): a date written in the browser's own zone and format. */
const TIME_FORMATTER = 'components/dashboard/ui.tsx';
function localTimeViolations(source: string): string[] {
  const code = stripComments(source);
  return [...code.matchAll(/\.toLocale(?:Date|Time)String\(|\bDate\([^()]*(?:\([^()]*\))?[^()]*\)\s*\.toLocaleString\(|\bDateTimeFormat\(/g)].map((m) => m[0]);
}

/**
 * (g): modules whose functions read and then act on what every worker shares: any scanner of
 * blocks in lib/payments (scan.ts, and a head scanner beside it), the energy pool's upkeep.
 */
const SINGLETON_SOURCES = [/^lib\/payments\/\w*scan\w*$/i, /^lib\/energy\/(operator|reclaim|status)$/];
function singletonViolations(file: string, source: string): string[] {
  if (!file.startsWith('worker/') || file === 'worker/main.ts') return [];
  const code = stripComments(source);
  const dir = path.posix.dirname(file);
  // A type-only import runs nothing of the scanner (worker/pacedScan.ts names its result's type).
  const shared = importsOf(code.replace(/^import type [^;]*;$/gm, ''))
    .map((spec) => (spec.startsWith('.') ? path.posix.join(dir, spec) : spec.replace(/^@\//, '')))
    .filter((target) => SINGLETON_SOURCES.some((re) => re.test(target)));
  return shared.length > 0 && !/\bsingleton\s*:\s*true\b/.test(code) ? shared.map((t) => `imports ${t} but its job is not singleton: true`) : [];
}

/**
 * (r): Prisma's raw-SQL forms. `$queryRawUnsafe`/`$executeRawUnsafe` run text as it is given, so
 * outside the executor (lib/db/sql.ts) they are one more way to write SQL, and the one that takes a
 * value into the text; `tests` says whether the file is a test, where fixed text may run that way.
 */
const SQL_HOME = 'lib/db/sql.ts';
/** (r) The files that name Prisma's raw-SQL forms on purpose, each with its reason. */
const PRISMA_SQL_ALLOWED: Record<string, string> = {
  'test/unit/architecture.test.ts': 'plants them, to show rule (r) fires',
  'test/unit/db-sql.test.ts': "compares the sql tag's rows with Prisma's own tag's for the same query",
};
function prismaSqlViolations(file: string, source: string): string[] {
  const code = stripComments(source);
  const unsafe = file !== SQL_HOME && !file.startsWith('test/');
  return [
    ...[...code.matchAll(/\bPrisma\s*\.\s*(?:sql|join|raw|empty|Sql)\b/g)].map((m) => m[0].replace(/\s+/g, '')),
    // `\b` after the name: `$queryRawUnsafe` is not `$queryRaw`.
    ...[...code.matchAll(/\$(?:queryRaw|executeRaw)\b/g)].map((m) => m[0]),
    ...(unsafe ? [...code.matchAll(/\$(?:queryRaw|executeRaw)Unsafe\b/g)].map((m) => m[0]) : []),
    ...[...code.matchAll(/\bimport\s+(?:type\s+)?\{[^}]*\b(?:sql|sqltag|join|raw|empty|Sql)\b[^}]*\}\s*from\s*['"](?:@prisma\/client[^'"]*|[^'"]*generated\/prisma[^'"]*)['"]/g)].map((m) => m[0].replace(/\s+/g, ' ')),
  ];
}

const files = [...SOURCE_DIRS.flatMap(sourceFiles), ...ROOT_FILES];
/** (r) The tests too (test/helpers, the browser tests of e2e/): their raw SQL is written as the code's is. */
const testFiles = ['test', 'e2e'].flatMap(sourceFiles);
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const domain = files.filter((f) => f.startsWith('lib/') && !f.startsWith('lib/http/') && !f.startsWith('lib/openapi/'));

describe('architecture (docs/architecture.md)', () => {
  it('scans the source it means to', () => {
    assert.ok(domain.length > 80, `${domain.length} domain files`);
    assert.ok(files.includes('lib/invoices/service.ts') && files.includes('worker/main.ts') && files.includes('lib/http/api/routes.ts'));
  });

  it('(a) lib/ outside lib/http and lib/openapi names no HTTP status', () => {
    const bad = domain.flatMap((f) => httpViolations(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], 'throw an AppError with a code (lib/errors.ts); lib/http/errors.ts maps codes to statuses');
  });

  it('(b) process.env is read only by lib/config.ts (and the listed tool and runner files)', () => {
    const bad = files.filter((f) => !(f in ENV_ALLOWED) && envViolations(read(f)).length > 0);
    assert.deepEqual(bad, [], 'declare the variable in a section of lib/config.ts and read it from there');
  });

  // (d), (e), (h), (i), (o), (p), (q): each door of DOORS (test/unit/doors.ts), by the one check.
  for (const door of DOORS) {
    it(`(${door.rule}) ${door.columns}: written only through ${door.via} (${door.door})`, () => {
      const bad = files.filter((f) => boundBy(door, f)).flatMap((f) => writesIn(door, stripComments(read(f))).map((v) => `${f}: ${v}`));
      assert.deepEqual(bad, [], door.advice);
    });
  }

  it('(f) the dashboard shows times only through formatTime: UTC, labelled', () => {
    const dashboard = files.filter((f) => (f.startsWith('components/dashboard/') || f.startsWith('app/dashboard/')) && f !== TIME_FORMATTER);
    const bad = dashboard.flatMap((f) => localTimeViolations(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], 'write a time with formatTime (components/dashboard/ui.tsx): the dashboard\'s one time zone is UTC, and it says so');
  });

  it('(g) a worker job that scans blocks or tends the energy pool is a singleton', () => {
    const bad = files.flatMap((f) => singletonViolations(f, read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], 'add singleton: true to the WorkerJob: it then runs only on the worker holding its leader lease (lib/worker/leader.ts)');
    assert.ok(files.includes('worker/scan.ts') && files.includes('worker/energy.ts'));
  });

  it('(j) no zod schema is defined in app/', () => {
    const bad = files.filter((f) => f.startsWith('app/')).flatMap((f) => zodSchemaViolations(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], "define the schema in the domain folder's schemas.ts (docs/modules.md) and import it");
  });

  it('(k) no lib/ module calls db() but the few in DB_CALLERS', () => {
    const bad = files.filter((f) => !mayCallDb(f)).flatMap((f) => dbCalls(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], "take the database client as a parameter; app/ and the worker pass db(), a route table's handler ctx.db");
    assert.ok(files.includes('lib/payouts/service.ts') && files.includes('lib/http/api/routes.ts') && files.includes('lib/invoices/loadPublic.ts'));
    for (const f of DB_CALLERS.keys()) assert.ok(dbCalls(read(f)).length > 0 || f === 'lib/db/client.ts', `${f} no longer calls db(): take it out of DB_CALLERS`);
  });

  it('(l) lib/ holds module-level mutable state only in lib/singletons.ts', () => {
    const bad = files.filter((f) => f.startsWith('lib/') && f !== STATE_ALLOWED).flatMap((f) => moduleStateViolations(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], 'keep it in the table of lib/singletons.ts (singleton(key, make) or cell(key)), so every copy of lib/ in the process shares it');
    assert.ok(moduleStateViolations(read(STATE_ALLOWED)).length > 0, 'the table itself is where the state is');
  });

  it('(m) a delay is doubled only by backoffMs (lib/backoff.ts)', () => {
    const bad = files.filter((f) => f !== BACKOFF_HOME).flatMap((f) => handDoublings(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], 'wait backoffMs({ baseMs, capMs, jitter }, retry) (lib/backoff.ts): the one doubling, each caller stating its own numbers');
    assert.ok(handDoublings(read(BACKOFF_HOME)).length > 0, 'the doubling itself is where it is');
  });

  it('(r) raw SQL is written only with the sql tag (lib/db/sql.ts)', () => {
    const bad = [...files, ...testFiles].filter((f) => !(f in PRISMA_SQL_ALLOWED)).flatMap((f) => prismaSqlViolations(f, read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], "write it with sql`...` (lib/db/sql.ts), values as parameters, and run it with queryRows/execute on the Prisma client or transaction, or with pg on the pool (sqlPool)");
    assert.ok(testFiles.includes('test/unit/db-sql.test.ts') && testFiles.includes('test/helpers/db.ts'));
    for (const file of Object.keys(PRISMA_SQL_ALLOWED)) assert.ok(testFiles.includes(file), `${file} exists`);
    assert.ok(/\$queryRawUnsafe\b/.test(stripComments(read(SQL_HOME))) && /\$executeRawUnsafe\b/.test(stripComments(read(SQL_HOME))), "the executor itself runs Prisma's raw query");
  });

  // The rules must catch what they are meant to: each one, on a planted violation.
  it('catches planted violations', () => {
    assert.deepEqual(httpViolations("import { notFound } from '@/lib/http/errors';\nthrow new ApiError(404, 'x');"), ["ApiError", "new ApiError(404", "ApiError(404"]);
    assert.deepEqual(httpViolations('return { status: 503, detail };'), ['status: 503']);
    assert.deepEqual(httpViolations('return new Response(body);'), ['new Response(']);
    assert.deepEqual(httpViolations('// a 404 in a comment\nconst BATCH = 500; z.number().max(480); s.slice(0, 500);'), []);
    assert.deepEqual(envViolations('const port = process.env.PORT;'), ['process.env']);
    assert.deepEqual(envViolations('// process.env is read by lib/config.ts'), []);
    assert.deepEqual(localTimeViolations('<td>{new Date(inv.created_at).toLocaleString()}</td>'), ['Date(inv.created_at).toLocaleString(']);
    assert.deepEqual(localTimeViolations('d.toLocaleDateString(); d.toLocaleTimeString(); new Intl.DateTimeFormat()'), ['.toLocaleDateString(', '.toLocaleTimeString(', 'DateTimeFormat(']);
    assert.deepEqual(localTimeViolations("{estimate.need_energy.toLocaleString('en')} {formatTime(d.created_at)} // new Date(x).toLocaleString()"), []);
    assert.deepEqual(singletonViolations('worker/headScan.ts', "import { scanHead } from '@/lib/payments/headScan';\nreturn { name: 'head-scan', step };"), ['imports lib/payments/headScan but its job is not singleton: true']);
    assert.deepEqual(singletonViolations('worker/pool.ts', "import { autostake } from '@/lib/energy/operator';\n// singleton: true\nreturn { name: 'pool', step };"), ['imports lib/energy/operator but its job is not singleton: true']);
    assert.deepEqual(singletonViolations('worker/headScan.ts', "import { scanHead } from '@/lib/payments/headScan';\nreturn { name: 'head-scan', singleton: true, step };"), []);
    assert.deepEqual(singletonViolations('worker/payments.ts', "import { processPayments } from '@/lib/payments/process';"), []);
    assert.deepEqual(singletonViolations('worker/pacedScan.ts', "import type { ScanResult } from '@/lib/payments/scan';\nexport type ScanStep = ScanResult;"), []);
    assert.deepEqual(singletonViolations('worker/scan.ts', "import type { ScanResult } from '@/lib/payments/scan';\nimport { scanNextBlocks } from '@/lib/payments/scan';\nreturn { name: 'scan', step };"), ['imports lib/payments/scan but its job is not singleton: true']);
    assert.deepEqual(zodSchemaViolations("import { z } from 'zod';\nconst bodySchema = z.object({ currency: z.enum(CURRENCIES) });"), ["import { z } from 'zod'", 'z.object(', 'z.enum(']);
    assert.deepEqual(zodSchemaViolations('const schema = z\n  .string().min(1); const n = z.coerce.number();'), ['z\n  .string(', 'z.coerce.number(']);
    assert.deepEqual(zodSchemaViolations("import type { z } from 'zod';\ntype In = z.input<typeof createInvoiceSchema>; // z.object({})\nparseOrThrow(releaseHeldSchema, body); viz.object(1);"), []);
    assert.deepEqual(dbCalls("import { db } from '@/lib/db/client';\nreturn invoiceJson(await createPayout(db(), merchant, quote));"), ['db()']);
    assert.deepEqual(dbCalls('const { rows } = await sqlPool(db( )).query(q);'), ['db( )']);
    assert.deepEqual(dbCalls('export async function f(db: PrismaClient) { await db.invoice.findMany(); ctx.db(); } // db()'), []);
    assert.ok(!mayCallDb('lib/payouts/service.ts') && !mayCallDb('lib/payouts/create.ts') && !mayCallDb('lib/http/dashboard/routes.ts') && mayCallDb('app/dashboard/page.tsx') && mayCallDb('lib/auth/session.ts'));
    assert.deepEqual(moduleStateViolations('let limiter: RateLimiter | undefined;\nexport let n = 0;\nvar old;'), ['let limiter', 'export let n', 'var old']);
    assert.deepEqual(moduleStateViolations('const cache = new Map<string, number>();\nexport const api = new Router(ROUTES, deps);\nconst seen: Set<string> = new Set();'), ['const cache = new Map', 'export const api = new Router', 'const seen: Set<string> = new Set']);
    assert.deepEqual(moduleStateViolations("const holder = globalThis as unknown as { __rateSource?: RateSource };"), ['globalThis']);
    // (m): each of the seven doublings issue 39 found, as written then; then what doubles no delay.
    assert.deepEqual(handDoublings('return Math.min(MAX_SLOWDOWN_MS, 250 * 2 ** Math.min(failures - MAX_FAILED_SIGN_INS, 10));'), ['2 **']);
    assert.deepEqual(handDoublings("data: last ? { status: 'FAILED', error } : { status: 'PENDING', error, notBefore: new Date(Date.now() + RETRY_BASE_MS * 2 ** (mail.attempts - 1)) },"), ['2 **']);
    assert.deepEqual(handDoublings('await sleep(backoff);\nbackoff = Math.min(backoff * 2, MAX_BACKOFF_MS);'), ['backoff = Math.min(backoff * 2']);
    assert.deepEqual(handDoublings('const delay = this.next;\nthis.next = Math.min(this.options.maxMs, this.next * 2);'), ['this.next = Math.min(this.options.maxMs, this.next * 2']);
    assert.deepEqual(handDoublings('return Math.min(ctx.settings.WORKER_POLL_MS * 2 ** Math.min(row.retries, 10), 60_000);'), ['2 **']);
    assert.deepEqual(handDoublings('return Math.min(ctx.settings.SEND_RETRY_BASE_MS * 2 ** Math.min(attempt - 1, 20), ctx.settings.SEND_RETRY_MAX_MS);'), ['2 **']);
    assert.deepEqual(handDoublings('const wait = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));'), ['2 **']);
    assert.deepEqual(handDoublings('const delayMs = Math.pow(2, n) * 100; waitMs *= 2; const timeoutMs = 1 << tries;'), ['Math.pow(2,', 'waitMs *= 2', '<<']);
    assert.deepEqual(
      handDoublings("(n << 8n) | BigInt(octet); if (value >= 2 ** 31) throw new RangeError('out of range'); const deadline = Date.now() + 30_000 + info.blockMs * 2; // retry in 2 ** n ms"),
      [],
    );
    // (r): each of Prisma's forms the code had (issue 39), then the executor, the tests' fixed text, and what is no raw SQL.
    assert.deepEqual(prismaSqlViolations('lib/x.ts', "const DUE = Prisma.sql`payment_state = ANY(${s}::\"PaymentState\"[])`;\nconst t = Prisma.raw(`\"${table}\"`);\nPrisma.join(and, ' AND '); Prisma.empty; let q: Prisma . Sql;"), ['Prisma.sql', 'Prisma.raw', 'Prisma.join', 'Prisma.empty', 'Prisma.Sql']);
    assert.deepEqual(prismaSqlViolations('lib/x.ts', 'const [locked] = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM api_keys WHERE id = ${id} FOR UPDATE`;\nawait prisma.$executeRaw`DELETE FROM x`; db: Pick<PrismaClient, \'$queryRaw\'>'), ['$queryRaw', '$executeRaw', '$queryRaw']);
    assert.deepEqual(prismaSqlViolations('scripts/x.ts', "await prisma.$queryRawUnsafe(`SELECT * FROM invoices WHERE id = ${id}`); await tx.$executeRawUnsafe('TRUNCATE x');"), ['$queryRawUnsafe', '$executeRawUnsafe']);
    assert.deepEqual(prismaSqlViolations('test/api/x.test.ts', "await app.prisma.$executeRawUnsafe('DROP TRIGGER refuse ON invoices'); await app.prisma.$queryRaw`SELECT 1`;"), ['$queryRaw']);
    assert.deepEqual(prismaSqlViolations('lib/x.ts', "import { sql, join } from '@prisma/client/runtime/client';\nimport { Prisma, empty } from '@/lib/generated/prisma/client';"), ["import { sql, join } from '@prisma/client/runtime/client'", "import { Prisma, empty } from '@/lib/generated/prisma/client'"]);
    assert.deepEqual(prismaSqlViolations(SQL_HOME, 'return client.$queryRawUnsafe<T[]>(text, ...values); return client.$executeRawUnsafe(text, ...values);'), []);
    assert.deepEqual(
      prismaSqlViolations('lib/x.ts', "import { execute, queryRows, sql, Sql } from '@/lib/db/sql';\nawait queryRows(tx, sql`SELECT id FROM invoices WHERE id = ${id} FOR UPDATE`); // not tx.$queryRaw`...`\nnew Prisma.Decimal(1); tx: Prisma.TransactionClient; Prisma.PrismaPromise; Prisma.sqlState; Sql.raw('t');"),
      [],
    );
    assert.deepEqual(
      moduleStateViolations("const SAFE: ReadonlySet<string> = new Set(['GET']);\nfunction f() {\n  let n = 0;\n  const m = new Map();\n}\n// let x = 1;\nconst id = globalThis.crypto.randomUUID();"),
      [],
    );
  });

  it('catches planted writes past every door, and leaves the door its own', () => {
    for (const door of DOORS) {
      for (const { file = 'lib/planted/x.ts', code, found } of door.planted) {
        const caught = boundBy(door, file) ? writesIn(door, stripComments(code)) : [];
        assert.deepEqual(caught, found, `(${door.rule}) ${file}: ${code}`);
      }
      assert.ok(door.planted.some((p) => p.found.length > 0) && door.planted.some((p) => p.found.length === 0), `(${door.rule}) plants a write and a read`);
      // The door itself writes the column, and the check leaves that to it.
      assert.ok(writesIn(door, stripComments(read(door.door))).length > 0, `(${door.rule}) ${door.door} writes ${door.columns} as the patterns see it`);
      assert.ok(!boundBy(door, door.door) && boundBy(door, 'lib/planted/x.ts'));
      for (const file of Object.keys(door.alsoNaming ?? {})) assert.ok(files.includes(file), `(${door.rule}) ${file} exists`);
    }
  });

  // (a)'s imports, (c), (n): dependency-cruiser's rules (.dependency-cruiser.mjs), which `npm run lint` runs over lib/.
  it('LIB_LAYERS names every folder and top file of lib/, once', () => {
    const listed = LIB_LAYERS.flat();
    const onDisk = [...new Set(readdirSync(path.join(ROOT, 'lib')).map((name) => name.replace(/\.tsx?$/, '')))].sort();
    assert.deepEqual([...listed].sort(), onDisk);
    assert.equal(new Set(listed).size, listed.length);
  });

  it('dependency-cruiser\'s rules fire on a planted tree', () => {
    const tree = mkdtempSync(path.join(tmpdir(), 'arch-'));
    try {
      const plant: Record<string, string> = {
        'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', paths: { '@/*': ['./*'] } } }),
        'node_modules/next/package.json': '{"name":"next","main":"index.js"}',
        'node_modules/next/index.js': '',
        'node_modules/next/headers.js': '',
        'node_modules/react/package.json': '{"name":"react","main":"index.js"}',
        'node_modules/react/index.js': '',
        'node_modules/next-auth/package.json': '{"name":"next-auth","main":"index.js"}',
        'node_modules/next-auth/index.js': '',
        'node_modules/next-auth/react.js': '',
        'node_modules/next-auth/providers/credentials.js': '',
        'app/b.ts': 'export const b = 1;',
        'components/A.tsx': 'export const A = 1;',
        // (n) down is fine; up, across a row, or dynamically up is not; `import type` is erased.
        'lib/payments/states.ts': "import { bookHeld } from '../ledger/book';\nexport const CLOSED = bookHeld;",
        'lib/ledger/book.ts': "import { CLOSED } from '@/lib/payments/states';\nexport const bookHeld = CLOSED;",
        'lib/invoices/load.ts': "import type { Payout } from '@/lib/payouts/service';\nexport type { Held } from '@/lib/refunds/z';\nexport const x = (p: Payout) => p;",
        'lib/invoices/later.ts': "export const later = () => import('@/lib/refunds/z');",
        'lib/payouts/service.ts': "export type Payout = number;",
        'lib/payments/scan.ts': "import { proof } from '@/lib/reconcile/proof';\nexport const scan = proof;",
        'lib/reconcile/proof.ts': 'export const proof = 1;',
        'lib/backoff.ts': "import { now } from './time';\nexport const b = now;",
        'lib/time.ts': 'export const now = 1;',
        'lib/rules/x.ts': "import { y } from './y';\nexport const x = y;",
        'lib/rules/y.ts': 'export const y = 1;',
        // (n) no cycle of modules, within a folder either (a cycle is reported once); one through a type is none.
        'lib/rules/c1.ts': "import { c2 } from './c2';\nexport const c1 = () => c2;",
        'lib/rules/c2.ts': "import { c1 } from './c1';\nexport const c2 = () => c1;",
        'lib/rules/t1.ts': "import type { T2 } from './t2';\nexport type T1 = T2 | 1;\nexport const t1 = 1;",
        'lib/rules/t2.ts': "import { t1 } from './t1';\nexport type T2 = typeof t1;",
        'lib/refunds/z.ts': 'export type Held = 1;\nexport const z = 1;',
        // (n) a folder LIB_LAYERS does not list, importing and imported.
        'lib/newfolder/x.ts': "import { now } from '../time';\nexport const x = now;",
        'lib/payouts/p.ts': "import { x } from '@/lib/newfolder/x';\nexport const p = x;",
        // (a) the domain imports nothing of lib/http, not even a type; lib/openapi may; lib/singletons.ts names its types only.
        'lib/http/errors.ts': 'export const notFound = 1;',
        'lib/http/router.ts': 'export type Router = 1;',
        'lib/http/node.ts': 'export const serve = 1;',
        'lib/invoices/h.ts': "import type { Router } from '@/lib/http/router';\nexport const r = (x: Router) => x;",
        'lib/openapi/document.ts': "import { notFound } from '@/lib/http/errors';\nexport const d = notFound;",
        'lib/singletons.ts': "import type { Router } from '@/lib/http/router';\nimport { serve } from '@/lib/http/node';\nexport const s = (r: Router) => [r, serve];",
        // (c) neither the framework nor app/ or components/, a type included; the session's adapter imports next-auth only.
        'lib/auth/x.ts': "import { headers } from 'next/headers';\nimport React from 'react';\nimport { A } from '@/components/A';\nimport { b } from '../../app/b';\nexport const x = [headers, React, A, b];",
        'lib/money/r.ts': "import type { ReactNode } from 'react';\nexport const r = (n: ReactNode) => n;",
        'lib/auth/session.ts': "import NextAuth from 'next-auth';\nimport Credentials from 'next-auth/providers/credentials';\nimport { useSession } from 'next-auth/react';\nexport const s = [NextAuth, Credentials, useSession];",
        'lib/auth/other.ts': "import NextAuth from 'next-auth';\nexport const o = NextAuth;",
        // Every import resolves.
        'lib/rates/u.ts': "import { gone } from '@/lib/rates/gone';\nexport const u = gone;",
      };
      for (const [file, text] of Object.entries(plant)) {
        mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
        writeFileSync(path.join(tree, file), text);
      }
      const run = spawnSync(path.join(ROOT, 'node_modules/.bin/depcruise'), ['lib', '--config', DEPCRUISE_CONFIG, '--output-type', 'json'], { cwd: tree, encoding: 'utf8' });
      assert.ok(run.stdout.startsWith('{'), run.stderr);
      const result = JSON.parse(run.stdout) as { summary: { violations: { from: string; to: string; rule: { name: string } }[] } };
      const fired = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
      assert.deepEqual(fired, [
        'domain-not-http: lib/invoices/h.ts -> lib/http/router.ts',
        'domain-not-http: lib/singletons.ts -> lib/http/node.ts',
        'lib-layers-unlisted: lib/newfolder/x.ts -> lib/time.ts',
        'lib-layers-unlisted: lib/payouts/p.ts -> lib/newfolder/x.ts',
        'lib-layers: lib/backoff.ts -> lib/time.ts',
        'lib-layers: lib/invoices/later.ts -> lib/refunds/z.ts',
        'lib-layers: lib/ledger/book.ts -> lib/payments/states.ts',
        'lib-layers: lib/payments/scan.ts -> lib/reconcile/proof.ts',
        'lib-layers: lib/singletons.ts -> lib/http/node.ts',
        'lib-no-framework: lib/auth/other.ts -> node_modules/next-auth/index.js',
        'lib-no-framework: lib/auth/session.ts -> node_modules/next-auth/react.js',
        'lib-no-framework: lib/auth/x.ts -> app/b.ts',
        'lib-no-framework: lib/auth/x.ts -> components/A.tsx',
        'lib-no-framework: lib/auth/x.ts -> node_modules/next/headers.js',
        'lib-no-framework: lib/auth/x.ts -> node_modules/react/index.js',
        'lib-no-framework: lib/money/r.ts -> node_modules/react/index.js',
        'lib-resolvable: lib/rates/u.ts -> @/lib/rates/gone',
        'lib-no-cycle: lib/ledger/book.ts -> lib/payments/states.ts',
        'lib-no-cycle: lib/rules/c1.ts -> lib/rules/c2.ts',
      ].sort());
      // As `npm run lint` runs it (its text report): it fails, and names the rules.
      const lint = spawnSync(path.join(ROOT, 'node_modules/.bin/depcruise'), ['lib', '--config', DEPCRUISE_CONFIG, '--output-type', 'err-long'], { cwd: tree, encoding: 'utf8' });
      assert.notEqual(lint.status, 0, 'depcruise fails the lint on them');
      assert.match(lint.stdout, /error lib-layers: lib\/ledger\/book\.ts → lib\/payments\/states\.ts\n\s+\(n\) a lib\/ folder imports at run time only/);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
