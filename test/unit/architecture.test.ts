import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { boundBy, DOORS, writesIn } from './doors';

/**
 * The layering rules of docs/architecture.md, checked over the source so they
 * hold after the next change too. The doors, "this column is written only by its module"
 * (rules d, e, h, i), are data: the table DOORS of test/unit/doors.ts, one row per door, read by
 * one check and each row proven on its planted code.
 * (a) lib/ outside lib/http (the HTTP edge) and lib/openapi (which documents the
 *     statuses) names no HTTP status and imports nothing of lib/http: the domain
 *     throws AppError with a code (lib/errors.ts), the edge maps it.
 * (b) process.env is read only by the configuration module, lib/config.ts.
 * (c) lib/ imports neither the framework (next, react) nor app/ or components/.
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
 * (k) a service.ts never calls db(): a use case takes its database client from its caller, so the
 *     same function runs on a transaction's client, the worker's or a test's (issue 25). Nor does a
 *     route table's handler (lib/http/<api>/routes.ts): it is given the client as `ctx.db` (issue 39).
 * (l) lib/ holds module-level mutable state only in lib/singletons.ts: no top-level `let` or `var`,
 *     no object made at the top level (`new Map()`, `new RateLimiter(...)`; a `ReadonlySet` or
 *     `ReadonlyMap` constant is no state), no value kept on `globalThis`. A web process evaluates
 *     lib/ twice (server.ts and Next's bundle), and state outside the one table would silently
 *     exist once per copy (issue 25).
 * (m) a delay is doubled only by backoffMs (lib/backoff.ts): no `2 **`, `Math.pow(2, ...)`, `<<`
 *     or `x = x * 2` beside a delay written by hand, so each retry states its base, cap and jitter
 *     in one place (issue 39).
 * (n) lib/'s folders import each other one way (issue 35): the graph of run-time imports between
 *     them (`import type` is erased; a file at lib/'s top is its own node) has no cycle.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
/** (l) The one module that holds lib/'s process-wide state. */
const STATE_ALLOWED = 'lib/singletons.ts';
const SOURCE_DIRS = ['app', 'lib', 'components', 'worker', 'devnet', 'scripts'];
const ROOT_FILES = ['server.ts', 'next.config.mjs', 'playwright.config.ts', 'prisma.config.ts'];

/** The only readers of process.env besides lib/config.ts, each with its reason. */
const ENV_ALLOWED: Record<string, string> = {
  'lib/config.ts': 'the configuration module itself',
  'scripts/run.ts': 'builds the environment of the web, worker and devnet children it starts',
  'scripts/devEnv.ts': "resolves the local run's environment for scripts/run.ts and the operator commands (npm run reconcile, payment:retry), before any configuration is read",
  'scripts/test.ts': "npm test's phases: hands its environment on to each phase's command, adding only the browser report's file",
  'next.config.mjs': "Next's build configuration (NEXT_DIST_DIR, set by the tests; NEXT_SKIP_TYPECHECK, set by npm test), read before any of our code",
  'playwright.config.ts': 'the browser tests\' harness configuration',
  'prisma.config.ts': "the Prisma CLI's configuration",
};
/** lib/auth/session.ts is the adapter to next-auth (its options are built from the session section). */
const FRAMEWORK_IMPORT_ALLOWED = new Set(['lib/auth/session.ts:next-auth', 'lib/auth/session.ts:next-auth/providers/credentials']);

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

/** (a): an HTTP status picked, or the HTTP edge reached, from domain code. */
function httpViolations(file: string, source: string): string[] {
  const code = stripComments(source);
  const found: string[] = [];
  if (/\bApiError\b/.test(code)) found.push('ApiError');
  for (const m of code.matchAll(/\bstatus(?:Code)?\s*[:=]\s*[1-5]\d\d\b/g)) found.push(m[0]);
  for (const m of code.matchAll(/\bnew\s+\w+\(\s*[45]\d\d\b/g)) found.push(m[0]);
  for (const m of code.matchAll(/\w*(?:Error|error|Response|response)\w*\(\s*[45]\d\d\b/g)) found.push(m[0]);
  for (const m of code.matchAll(/\bnew\s+(?:Response|NextResponse)\(|\bResponse\.json\(/g)) found.push(m[0]);
  const dir = path.posix.dirname(file);
  // lib/singletons.ts names the type of each value in its table (the API's router among them), by `import type` only.
  const checked = file === STATE_ALLOWED ? code.replace(/\bimport\s+type\b[^;]*;/g, '') : code;
  for (const spec of importsOf(checked)) {
    const target = spec.startsWith('.') ? path.posix.join(dir, spec) : spec.replace(/^@\//, '');
    if (target === 'lib/http' || target.startsWith('lib/http/')) found.push(`import '${spec}'`);
  }
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

/** (k): a service module, or a route table of lib/http, that reaches for the process's database client itself. */
const isService = (file: string) => /^lib\/(?:.*\/)?service\.ts$/.test(file) || /^lib\/http\/[^/]+\/routes\.ts$/.test(file);
function serviceDbCalls(source: string): string[] {
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

/** (c) */
function frameworkViolations(file: string, source: string): string[] {
  const dir = path.posix.dirname(file);
  return importsOf(stripComments(source)).filter((spec) => {
    if (FRAMEWORK_IMPORT_ALLOWED.has(`${file}:${spec}`)) return false;
    if (/^(next|react|react-dom|next-auth)(\/|$)/.test(spec)) return true;
    const target = spec.startsWith('.') ? path.posix.join(dir, spec) : spec.replace(/^@\//, '');
    return /^(app|components)(\/|$)/.test(target);
  });
}

/** (n) A lib/ file's folder (`lib/payments/scan.ts` → `payments`; a file at lib/'s top is its own: `backoff`). */
const libFolder = (file: string) => file.replace(/^lib\//, '').replace(/\.tsx?$/, '').split('/')[0]!;

/** (n) The lib/ folders each lib/ file's folder imports at run time: `import type` and `export type` are erased by the compiler. */
function folderImports(sources: { file: string; source: string }[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { file, source } of sources) {
    const from = libFolder(file);
    const code = stripComments(source).replace(/\b(?:import|export)\s+type\b[^;]*;/g, '');
    for (const spec of importsOf(code)) {
      const target = spec.startsWith('.') ? path.posix.join(path.posix.dirname(file), spec) : spec.replace(/^@\//, '');
      if (!target.startsWith('lib/') || target.startsWith('lib/generated')) continue;
      const to = libFolder(target);
      if (to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** (n) The graph's cycles: each set of folders that reach one another (a strongly connected component of two or more), as `a -> b -> ... -> a`-free sorted names. */
function importCycles(graph: Map<string, Set<string>>): string[][] {
  const nodes = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((s) => [...s])])].sort();
  const reach = (from: string) => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      for (const next of graph.get(stack.pop()!) ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        stack.push(next);
      }
    }
    return seen;
  };
  const reached = new Map(nodes.map((n) => [n, reach(n)]));
  const cycles = new Map<string, string[]>();
  for (const a of nodes) {
    const members = nodes.filter((b) => b === a ? reached.get(a)!.has(a) : reached.get(a)!.has(b) && reached.get(b)!.has(a));
    if (members.length > 1) cycles.set(members.join(' '), members);
  }
  return [...cycles.values()];
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
  const shared = importsOf(code)
    .map((spec) => (spec.startsWith('.') ? path.posix.join(dir, spec) : spec.replace(/^@\//, '')))
    .filter((target) => SINGLETON_SOURCES.some((re) => re.test(target)));
  return shared.length > 0 && !/\bsingleton\s*:\s*true\b/.test(code) ? shared.map((t) => `imports ${t} but its job is not singleton: true`) : [];
}

const files = [...SOURCE_DIRS.flatMap(sourceFiles), ...ROOT_FILES];
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const domain = files.filter((f) => f.startsWith('lib/') && !f.startsWith('lib/http/') && !f.startsWith('lib/openapi/'));

describe('architecture (docs/architecture.md)', () => {
  it('scans the source it means to', () => {
    assert.ok(domain.length > 80, `${domain.length} domain files`);
    assert.ok(files.includes('lib/invoices/service.ts') && files.includes('worker/main.ts') && files.includes('lib/http/api/routes.ts'));
  });

  it('(a) lib/ outside lib/http and lib/openapi names no HTTP status and imports nothing of lib/http', () => {
    const bad = domain.flatMap((f) => httpViolations(f, read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], 'throw an AppError with a code (lib/errors.ts); lib/http/errors.ts maps codes to statuses');
  });

  it('(b) process.env is read only by lib/config.ts (and the listed tool and runner files)', () => {
    const bad = files.filter((f) => !(f in ENV_ALLOWED) && envViolations(read(f)).length > 0);
    assert.deepEqual(bad, [], 'declare the variable in a section of lib/config.ts and read it from there');
  });

  it('(c) lib/ imports neither next nor react, nor app/ or components/', () => {
    const bad = files.filter((f) => f.startsWith('lib/')).flatMap((f) => frameworkViolations(f, read(f)).map((v) => `${f}: import '${v}'`));
    assert.deepEqual(bad, [], 'lib/ is the framework-free domain; framework code belongs in app/ or components/');
  });

  // (d), (e), (h), (i): each door of DOORS (test/unit/doors.ts), by the one check.
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

  it('(k) a service.ts never calls db(), nor does a route table', () => {
    const services = files.filter(isService);
    const bad = services.flatMap((f) => serviceDbCalls(read(f)).map((v) => `${f}: ${v}`));
    assert.deepEqual(bad, [], "take the database client as a parameter; the worker passes db(), a route table's handler ctx.db");
    assert.ok(services.includes('lib/payouts/service.ts') && services.includes('lib/invoices/service.ts'));
    assert.ok(services.includes('lib/http/api/routes.ts') && services.includes('lib/http/dashboard/routes.ts'));
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

  it('(n) lib/\'s folders import each other one way: no cycle', () => {
    const lib = files.filter((f) => f.startsWith('lib/') && /\.tsx?$/.test(f));
    const graph = folderImports(lib.map((file) => ({ file, source: read(file) })));
    assert.deepEqual(importCycles(graph), [], 'a folder may import only folders below it (docs/architecture.md, "Layers"): move what both need below both');
    assert.ok(graph.get('payments')?.has('sends') && graph.get('energy')?.has('sends'), 'the graph is read: the payments and the energy pool send through lib/sends');
  });

  // The rules must catch what they are meant to: each one, on a planted violation.
  it('catches planted violations', () => {
    // (n): a use case imported back by the door it calls; type imports, comments and relative paths as they are.
    const planted = folderImports([
      { file: 'lib/payments/states.ts', source: "import { bookHeld } from '@/lib/ledger/book';\nimport type { Invoice } from '@/lib/invoices/load';" },
      { file: 'lib/ledger/book.ts', source: "import { CLOSED } from '@/lib/payments/states'; // from '@/lib/invoices/x'" },
      { file: 'lib/invoices/load.ts', source: "import { x } from '../payments/states';\nexport type { Y } from '@/lib/ledger/book';" },
      { file: 'lib/backoff.ts', source: "import { z } from 'zod';" },
    ]);
    assert.deepEqual(importCycles(planted), [['ledger', 'payments']]);
    assert.deepEqual([...planted.get('invoices')!], ['payments']);
    // A longer loop: each folder imports only the next, and the last the first.
    const loop = folderImports([
      { file: 'lib/invoices/transitions.ts', source: "import { enqueue } from '@/lib/webhooks/outbox';" },
      { file: 'lib/webhooks/outbox.ts', source: "import { json } from '@/lib/transactions/serialize';" },
      { file: 'lib/transactions/serialize.ts', source: "import { invoiceJson } from '@/lib/invoices/serialize';" },
      { file: 'lib/payments/scan.ts', source: "import { x } from '@/lib/invoices/transitions';" },
    ]);
    assert.deepEqual(importCycles(loop), [['invoices', 'transactions', 'webhooks']]);
    assert.deepEqual(httpViolations('lib/invoices/x.ts', "import { notFound } from '@/lib/http/errors';\nthrow new ApiError(404, 'x');"), ["ApiError", "new ApiError(404", "ApiError(404", "import '@/lib/http/errors'"]);
    assert.deepEqual(httpViolations('lib/invoices/x.ts', "import { x } from '../http/route';"), ["import '../http/route'"]);
    assert.deepEqual(httpViolations('lib/rates/x.ts', 'return { status: 503, detail };'), ['status: 503']);
    assert.deepEqual(httpViolations('lib/rates/x.ts', 'return new Response(body);'), ['new Response(']);
    assert.deepEqual(httpViolations('lib/rates/x.ts', '// a 404 in a comment\nconst BATCH = 500; z.number().max(480); s.slice(0, 500);'), []);
    assert.deepEqual(envViolations('const port = process.env.PORT;'), ['process.env']);
    assert.deepEqual(envViolations('// process.env is read by lib/config.ts'), []);
    assert.deepEqual(frameworkViolations('lib/auth/x.ts', "import { headers } from 'next/headers';\nimport React from 'react';\nimport { A } from '@/components/A';\nimport { B } from '../../app/b';"), ['next/headers', 'react', '@/components/A', '../../app/b']);
    assert.deepEqual(frameworkViolations('lib/auth/session.ts', "import { getServerSession } from 'next-auth';"), []);
    assert.deepEqual(frameworkViolations('lib/auth/other.ts', "import { getServerSession } from 'next-auth';"), ['next-auth']);
    assert.deepEqual(localTimeViolations('<td>{new Date(inv.created_at).toLocaleString()}</td>'), ['Date(inv.created_at).toLocaleString(']);
    assert.deepEqual(localTimeViolations('d.toLocaleDateString(); d.toLocaleTimeString(); new Intl.DateTimeFormat()'), ['.toLocaleDateString(', '.toLocaleTimeString(', 'DateTimeFormat(']);
    assert.deepEqual(localTimeViolations("{estimate.need_energy.toLocaleString('en')} {formatTime(d.created_at)} // new Date(x).toLocaleString()"), []);
    assert.deepEqual(singletonViolations('worker/headScan.ts', "import { scanHead } from '@/lib/payments/headScan';\nreturn { name: 'head-scan', step };"), ['imports lib/payments/headScan but its job is not singleton: true']);
    assert.deepEqual(singletonViolations('worker/pool.ts', "import { autostake } from '@/lib/energy/operator';\n// singleton: true\nreturn { name: 'pool', step };"), ['imports lib/energy/operator but its job is not singleton: true']);
    assert.deepEqual(singletonViolations('worker/headScan.ts', "import { scanHead } from '@/lib/payments/headScan';\nreturn { name: 'head-scan', singleton: true, step };"), []);
    assert.deepEqual(singletonViolations('worker/payments.ts', "import { processPayments } from '@/lib/payments/process';"), []);
    assert.deepEqual(zodSchemaViolations("import { z } from 'zod';\nconst bodySchema = z.object({ currency: z.enum(CURRENCIES) });"), ["import { z } from 'zod'", 'z.object(', 'z.enum(']);
    assert.deepEqual(zodSchemaViolations('const schema = z\n  .string().min(1); const n = z.coerce.number();'), ['z\n  .string(', 'z.coerce.number(']);
    assert.deepEqual(zodSchemaViolations("import type { z } from 'zod';\ntype In = z.input<typeof createInvoiceSchema>; // z.object({})\nparseOrThrow(releaseHeldSchema, body); viz.object(1);"), []);
    assert.deepEqual(serviceDbCalls("import { db } from '@/lib/db/client';\nreturn invoiceJson(await createPayout(db(), merchant, quote));"), ['db()']);
    assert.deepEqual(serviceDbCalls('const { rows } = await sqlPool(db( )).query(q);'), ['db( )']);
    assert.deepEqual(serviceDbCalls('export async function f(db: PrismaClient) { await db.invoice.findMany(); ctx.db(); } // db()'), []);
    assert.ok(isService('lib/payouts/service.ts') && !isService('lib/payouts/create.ts') && !isService('app/service.ts'));
    assert.ok(isService('lib/http/dashboard/routes.ts') && !isService('lib/http/router.ts') && !isService('app/dashboard/routes.ts'));
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
});
