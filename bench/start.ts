/**
 * How long the web server and the worker take to start, run from the bundle production runs
 * (scripts/bundle.ts, dist/) and from their sources through tsx, as before issue 25.
 * `npm run bench:start`; needs PostgreSQL at TEST_DATABASE_URL (or DATABASE_URL) and a current
 * `npm run build` (written first when stale).
 *
 * Each round starts every process both ways, by turns (odd rounds the source first), so the
 * machine's load falls on both alike: web from spawn to its first 200 on /healthz, worker from
 * spawn to its "worker: running as" line. Each is stopped (SIGTERM) before the next starts.
 * BENCH_ROUNDS (7) rounds. Prints `start_ms{process=web|worker,from=bundle|source}=` (the median)
 * and `start_ratio{process=...}=` (the median of the rounds' bundle/source ratios).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createPrisma } from '@/lib/db/client';
import { prepareAccounts } from '@/lib/merchants/accounts';
import { bundledEntry, staleBundleReason } from '../scripts/bundle';
import { freePort, TEST_MNEMONIC } from '../test/helpers/app';
import { createTestDatabase } from '../test/helpers/db';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
if (process.env.DATABASE_URL && !process.env.TEST_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;

type Kind = 'web' | 'worker';
type From = 'bundle' | 'source';

if (staleBundleReason(ROOT) !== null) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
}

const database = await createTestDatabase();
{
  const prisma = createPrisma(database.url);
  await prepareAccounts(prisma, TEST_MNEMONIC);
  await prisma.$disconnect();
}
const baseEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: database.url,
  MASTER_KEY: randomBytes(32).toString('hex'),
  NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
  NODE_ENV: 'production',
  NEXT_TELEMETRY_DISABLED: '1',
  HOST: '127.0.0.1',
  WEB_CONCURRENCY: '1',
  RATES_PROVIDER: 'fixed',
  RATES_FIXED_TRX_USD: '0.25',
  RATES_FIXED_USDT_USD: '1',
  // The worker is not meant to reach a node here: it is measured to its first line.
  TRON_FULL_NODE_URL: 'http://127.0.0.1:9',
};

const args = (kind: Kind, from: From) => (from === 'bundle' ? bundledEntry(ROOT, kind === 'web' ? 'server' : 'worker') : ['--import', 'tsx', kind === 'web' ? 'server.ts' : 'worker/main.ts']);

/** Milliseconds from spawn until the process is ready, then stops it. */
async function startOnce(kind: Kind, from: From): Promise<number> {
  const port = await freePort();
  const env = kind === 'web' ? { ...baseEnv, PORT: String(port) } : { ...baseEnv, HD_MNEMONIC: TEST_MNEMONIC };
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args(kind, from), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${kind} (${from}) exited:\n${output}`);
      if (kind === 'worker' ? output.includes('worker: running as') : await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    return performance.now() - started;
  } finally {
    await new Promise((r) => {
      if (child.exitCode !== null) return r(undefined);
      child.once('exit', r);
      child.kill('SIGTERM');
    });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

try {
  for (const kind of ['web', 'worker'] as const) {
    const times: Record<From, number[]> = { bundle: [], source: [] };
    const ratios: number[] = [];
    // One start of each, not counted: the file cache warmed for both.
    for (const from of ['source', 'bundle'] as const) await startOnce(kind, from);
    for (let round = 0; round < ROUNDS; round++) {
      const order: From[] = round % 2 ? ['source', 'bundle'] : ['bundle', 'source'];
      const seen = {} as Record<From, number>;
      for (const from of order) seen[from] = await startOnce(kind, from);
      times.bundle.push(seen.bundle);
      times.source.push(seen.source);
      ratios.push(seen.bundle / seen.source);
      console.log(`# ${kind} round ${round + 1}: bundle ${seen.bundle.toFixed(0)} ms, source ${seen.source.toFixed(0)} ms`);
    }
    for (const from of ['bundle', 'source'] as const) console.log(`start_ms{process=${kind},from=${from}}=${median(times[from]).toFixed(0)}`);
    console.log(`start_ratio{process=${kind}}=${median(ratios).toFixed(2)}`);
  }
} finally {
  await database.drop();
}
