import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { createPrisma, type PrismaClient } from '@/lib/db/client';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { prepareAccounts } from '@/lib/merchants/accounts';
import { createMerchant } from '@/lib/merchants/service';
import type { Merchant } from '@/lib/generated/prisma/client';
import { bundled } from './bundle';
import { createTestDatabase, type TestDatabase } from './db';
import { httpRequest, type HttpResponse, type RequestOptions } from './http';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const TEST_MNEMONIC = 'test test test test test test test test test test test junk';
/**
 * bcrypt's cost for the passwords the tests' servers and helpers hash (PASSWORD_HASH_COST): 4, not
 * production's 12. At 12 every sign-up, sign-in and password check cost about a third of a second
 * of CPU, about a quarter of the unit and api lane's (issue 41). What is checked is the same: a
 * bcrypt hash, compared in full; the default of 12 is tested where the README's runs seed it.
 */
export const TEST_PASSWORD_HASH_COST = 4;
// Captured before any startApp() adds its settings, so two apps in one file do not inherit each other's.
const BASE_ENV = { ...process.env };

/** The ports freePort gave this process. */
const givenPorts = new Set<number>();

/**
 * Where freePort looks: the 12,000 ports just below the kernel's ephemeral range (32768-60999 on
 * Linux). A listen on port 0 (the devnets, the webhook and mail receivers) and every outgoing
 * connection draw from that range, so one of them could take a port between freePort handing it
 * out and the server listening on it, or between a run freeing it and a test checking that. A
 * machine whose range leaves no room below it gets the kernel's choice, as before.
 */
function freePortRange(): { low: number; high: number } | null {
  try {
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return ephemeralLow >= 13_024 ? { low: ephemeralLow - 12_000, high: ephemeralLow - 1 } : null;
  } catch {
    return null;
  }
}
const FREE_PORT_RANGE = freePortRange();

/** The port a server could listen on at 127.0.0.1 now (`port`, or any for 0), or why it could not. */
function tryListen(port: number): Promise<number | Error> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', resolve);
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as { port: number };
      srv.close(() => resolve(bound));
    });
  });
}

/**
 * A port nothing listens on now, from FREE_PORT_RANGE. Once closed it is free again, and could be
 * picked by the next call too: run-secrets' PORT and DEVNET_PORT were the same once (two suites
 * side by side, 2026-12-04), and its web process found the devnet there (EADDRINUSE). None is
 * given twice here.
 */
export async function freePort(): Promise<number> {
  // A few ports of the range may be taken; a hundred in a row means no listen works here at all.
  for (let attempt = 1; ; attempt++) {
    const wanted = FREE_PORT_RANGE === null ? 0 : FREE_PORT_RANGE.low + Math.floor(Math.random() * (FREE_PORT_RANGE.high - FREE_PORT_RANGE.low + 1));
    const port = await tryListen(wanted);
    if (port instanceof Error) {
      if (attempt >= 100) throw new Error(`no free port found in ${attempt} tries: ${port.message}`);
      continue;
    }
    if (givenPorts.has(port)) continue;
    givenPorts.add(port);
    return port;
  }
}

export interface TestApp {
  baseUrl: string;
  /** Its database: its own, or the one given to startApp to share (then not dropped at stop). */
  database: TestDatabase;
  apiBase: string;
  prisma: PrismaClient;
  env: Record<string, string>;
  /** Calls the API at `path` (relative to /v1/api) with the given key. */
  api(path: string, key: string | null, opts?: RequestOptions): Promise<HttpResponse>;
  createMerchant(opts?: { targetWallet?: string | null; ipWhitelist?: string[] }): Promise<{ merchant: Merchant; key: string }>;
  /** What the web server has printed (its JSON log lines). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Healthy means this child answers: its own "listening" line is printed (so the port is its own:
 * two processes cannot both listen on it) and /healthz says 200. A free port found by freePort()
 * can be taken by another test process's server before this one binds it; then that server would
 * answer /healthz, and this file's requests would reach another database (a CI run's
 * "Invalid API key" for a key just issued).
 */
async function waitForHealth(baseUrl: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`web server exited early:\n${log()}`);
    try {
      if (log().includes('web: listening on') && (await httpRequest(`${baseUrl}/healthz`)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`web server did not become healthy:\n${log()}`);
}

export interface StartOptions {
  /** Another app's database, shared as by web processes on several hosts (give them its MASTER_KEY and NEXTAUTH_SECRET too); not dropped at stop. */
  database?: TestDatabase;
  /** In a process group of its own, as on another host (a signal to the test's group does not reach it). */
  detached?: boolean;
}

/**
 * Starts the real production server (dist/server.mjs, the bundle of server.ts, over the `next build` output)
 * on a free port against a fresh database. The test process shares its
 * MASTER_KEY and HD seed so it can seed merchants through lib/.
 */
export async function startApp(extraEnv: Record<string, string> = {}, options: StartOptions = {}): Promise<TestApp> {
  if (!existsSync(path.join(ROOT, process.env.NEXT_DIST_DIR || '.next', 'BUILD_ID'))) throw new Error('No Next.js build: run `npm run build` first (npm test does)');
  const database: TestDatabase = options.database ?? (await createTestDatabase());
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    MASTER_KEY: randomBytes(32).toString('hex'),
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    HD_MNEMONIC: TEST_MNEMONIC,
    HOST: '127.0.0.1',
    RATES_PROVIDER: 'fixed',
    RATES_FIXED_TRX_USD: '0.25',
    RATES_FIXED_USDT_USD: '1',
    FORWARDING_FEE_PERCENT: '1',
    PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST),
    ...extraEnv,
  };
  Object.assign(process.env, env);
  // As scripts/run.ts does: accounts are prepared by a process that holds the mnemonic, and the
  // web server is started without it (issue 16), so no test passes by the web deriving keys.
  if (env.HD_MNEMONIC) {
    const preparer = createPrisma(database.url);
    await prepareAccounts(preparer, env.HD_MNEMONIC);
    await preparer.$disconnect();
  }
  const { HD_MNEMONIC: _mnemonic, ...webEnv } = { ...BASE_ENV, ...env };
  // Another test process may take the free port before this server binds it: then this one exits
  // with EADDRINUSE, and is started again on another port.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    env.PORT = String(port);
    process.env.PORT = env.PORT;
    const child = spawn(process.execPath, bundled('server'), {
      cwd: ROOT,
      detached: options.detached ?? false,
      // Pages and routes loaded as the test asks for them, not all at start (next.config.mjs, issue 41).
      env: { WEB_PRELOAD_ROUTES: 'false', ...webEnv, PORT: env.PORT, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForHealth(baseUrl, child, () => output);
    } catch (err) {
      if (attempt < 5 && output.includes('EADDRINUSE')) continue;
      throw err;
    }
    return appOf({ baseUrl, database, env, child, output: () => output, ownDatabase: !options.database });
  }
}

interface Started {
  baseUrl: string;
  database: TestDatabase;
  env: Record<string, string>;
  child: ChildProcess;
  output: () => string;
  ownDatabase: boolean;
}

function appOf({ baseUrl, database, env, child, output, ownDatabase }: Started): TestApp {
  const prisma = createPrisma(database.url);
  return {
    baseUrl,
    database,
    apiBase: `${baseUrl}/v1/api`,
    prisma,
    env,
    api(p, key, opts = {}) {
      const headers = { ...(key !== null && { authorization: key }), ...opts.headers };
      return httpRequest(`${baseUrl}/v1/api${p}`, { ...opts, headers });
    },
    async createMerchant(opts = {}) {
      const merchant = await createMerchant(prisma, {
        email: `m-${randomBytes(6).toString('hex')}@example.com`,
        targetWalletAddress: opts.targetWallet === undefined ? 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' : opts.targetWallet,
      });
      if (opts.ipWhitelist) await prisma.merchant.update({ where: { id: merchant.id }, data: { ipWhitelist: opts.ipWhitelist } });
      return { merchant, key: await issueApiKey(prisma, merchant.id, 'test') };
    },
    output,
    async stop() {
      await prisma.$disconnect();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (ownDatabase) await database.drop();
    },
  };
}
