import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { EmbeddedDatabase } from '@/lib/db/embedded';
import { migrate } from '@/lib/db/migrate';
import { deriveAccount } from '@/lib/chain/keys';
import { createPrisma } from '@/lib/db/client';
import { prepareAccounts } from '@/lib/merchants/accounts';
import { dataDirOf, startLocalDatabase, localDevnet, withDevSecrets } from './devEnv';
import { afterDevnetRestart, fundGasWalletOnDevnet } from './devnetGas';
import { BUNDLE_DIR, bundledEntry, bundleIfStale, type BundleName } from './bundle';
import { applyLocalRunDefaults, devnetEnv, seedEnv, startBanner, webEnv, workerEnv } from './childEnv';
import { isRestartsWanted, restartsMessage, RestartBackoff, zeroCounts, type ProcessKind, type RestartCounts } from '@/lib/operations/restarts';

/**
 * Starts the whole service: database (embedded unless DATABASE_URL is set),
 * migrations, demo merchant, web app and worker; restarts any of them that dies (with backoff),
 * and stops them together on SIGINT/SIGTERM.
 * `--dev` runs Next in development mode and the sources through tsx; otherwise a prior
 * `npm run build` is served: Next's build, and the bundle of server.ts and the worker in dist/.
 */
const dev = process.argv.includes('--dev');
const dataDir = dataDirOf();
// Only a local run invents secrets and a database: in production a missing
// MASTER_KEY or DATABASE_URL must stop the start, not be made up and kept in ./data.
const env: NodeJS.ProcessEnv = dev ? withDevSecrets(dataDir, process.env) : { ...process.env };
Object.assign(env, { NODE_ENV: dev ? 'development' : 'production', NEXT_TELEMETRY_DISABLED: '1' });
env.PORT ??= '3000';
// Production serves from one web process per core (server.ts, node:cluster); dev stays one process.
if (!dev) env.WEB_CONCURRENCY ??= String(availableParallelism());
if (!dev && !env.DATABASE_URL) {
  console.error('npm start needs DATABASE_URL (and MASTER_KEY, HD_MNEMONIC, NEXTAUTH_SECRET): see docs/configuration.md. For a local run use npm run dev.');
  process.exit(1);
}

let embedded: EmbeddedDatabase | undefined;
if (!env.DATABASE_URL) {
  embedded = await startLocalDatabase(dataDir, env);
  env.DATABASE_URL = embedded.url;
  console.log(`db: embedded PostgreSQL in ${path.join(dataDir, 'postgres')}, on 127.0.0.1:${env.EMBEDDED_DB_PORT ?? 5433} (log: ${path.join(dataDir, 'postgres.log')})`);
  if (existsSync(path.join(dataDir, 'pglite'))) {
    console.log(`db: ${path.join(dataDir, 'pglite')} holds data of the old PGlite default; it is not read any more (delete it when you no longer need it)`);
  }
}

await migrate(env.DATABASE_URL);
// Account xpubs, before the web starts: its sign-ups and invoices derive addresses from them, as it
// holds no mnemonic (lib/merchants/accounts.ts). The worker keeps them ahead from then on.
if (!env.HD_MNEMONIC) {
  console.error('HD_MNEMONIC is not set: see docs/configuration.md');
  process.exit(1);
}
{
  const prisma = createPrisma(env.DATABASE_URL);
  await prepareAccounts(prisma, env.HD_MNEMONIC);
  await prisma.$disconnect();
}
// The local devnet is the chain unless a real network is configured; where the devnet child will
// listen is the devnet section of lib/config.ts, read from the child's environment (scripts/devEnv.ts,
// which records it for the operator commands).
const devnetUrl = localDevnet(dataDir, env);
const useDevnet = devnetUrl !== '';
// Local receivers (a webhook test server on localhost) are fine on a local devnet run only; a devnet
// run stakes an energy pool (scripts/childEnv.ts).
applyLocalRunDefaults(env, { dev, useDevnet });
/**
 * A process the runner keeps running (issue 27, finding 1): when it dies unasked (a crash, a
 * kill -9, the OOM killer) it is started again after a backoff (lib/operations/restarts.ts)
 * while the others keep serving; only a SIGINT/SIGTERM to the runner stops them all.
 */
interface Supervised {
  kind: ProcessKind;
  args: string[];
  env: NodeJS.ProcessEnv;
  backoff: RestartBackoff;
  child?: ChildProcess;
  startedAt: number;
  timer?: NodeJS.Timeout;
  /** Runs after each restart (the devnet's gas wallet, funded again). */
  afterRestart?: () => Promise<void>;
}
const supervised: Supervised[] = [];
const restarts: RestartCounts = zeroCounts();
let stopping = false;

function spawnChild(s: Supervised): void {
  const child = spawn(process.execPath, s.args, { env: s.env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  s.child = child;
  s.startedAt = Date.now();
  // The web server shows every restart on /healthz and /metrics: it asks for the counts once it listens.
  if (s.kind === 'web') child.on('message', (message) => isRestartsWanted(message) && sendRestarts());
  child.on('error', (err) => console.error(`${s.kind}: ${err.message}`));
  child.on('exit', (code, signal) => {
    if (stopping) return;
    const delay = s.backoff.delayAfter(Date.now() - s.startedAt);
    console.error(`${s.kind} exited (${signal ?? code}); restarting it in ${delay} ms, the others keep running`);
    s.timer = setTimeout(() => {
      if (stopping) return;
      restarts[s.kind] += 1;
      spawnChild(s);
      sendRestarts();
      s.afterRestart?.().catch((err: unknown) => console.error(`${s.kind}: after restart: ${(err as Error).message}`));
    }, delay);
  });
}

function start(kind: ProcessKind, args: string[], childEnv: NodeJS.ProcessEnv, afterRestart?: () => Promise<void>): void {
  const s: Supervised = { kind, args, env: childEnv, backoff: new RestartBackoff(), startedAt: Date.now(), afterRestart };
  supervised.push(s);
  spawnChild(s);
}

function sendRestarts(): void {
  const web = supervised.find((s) => s.kind === 'web')?.child;
  if (web?.connected) web.send(restartsMessage(restarts), () => undefined);
}

// The demo merchant exists where there is a key for it: always on a local run.
if (env.DEMO_API_KEY) {
  await new Promise<void>((resolve, reject) => {
    const seed = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed.ts'], { env: seedEnv(env), stdio: 'inherit' });
    seed.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seed failed (${code})`))));
  });
}

if (useDevnet) {
  const gasAddress = deriveAccount(env.HD_MNEMONIC as string, 0, 'gas').address;
  // A restarted devnet replays its block log from DEVNET_DATA_DIR: the same chain, the gas wallet
  // still funded (checked again, and funded only if short).
  start('devnet', ['--import', 'tsx', '--import', './scripts/exitWithParent.ts', 'devnet/cli.ts', 'start'], devnetEnv(env), () => afterDevnetRestart(devnetUrl, gasAddress));
  await fundGasWalletOnDevnet(devnetUrl, gasAddress);
}
// Each process gets the variables it uses (scripts/childEnv.ts): the internet-facing web process
// never the mnemonic, the root of every fund (issue 16); the worker never the session secret.
// Production runs the bundle of server.ts and the worker (scripts/bundle.ts; npm start wrote it if
// it was stale); `npm run dev` and the devnet run their sources through tsx.
const root = path.resolve(import.meta.dirname, '..');
if (!dev) {
  const bundled = bundleIfStale(root);
  if (bundled !== null) console.log(`start: bundled server and worker into dist/: ${bundled}`);
}
const fromBundle = (name: BundleName) => ['--import', path.join(root, BUNDLE_DIR, 'exitWithParent.mjs'), ...bundledEntry(root, name)];
const fromSource = (file: string) => ['--import', 'tsx', '--import', './scripts/exitWithParent.ts', file];
start('web', dev ? [...fromSource('server.ts'), '--dev'] : fromBundle('server'), webEnv(env));
start('worker', dev ? fromSource('worker/main.ts') : fromBundle('worker'), workerEnv(env));

const base = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
// The banner comes once the web app answers, so its first curl works.
const localHost = !env.HOST || ['0.0.0.0', '::'].includes(env.HOST) ? '127.0.0.1' : env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
await waitForHealthy(`http://${localHost}:${env.PORT}/healthz`);
// `npm start` prints no key or password (scripts/childEnv.ts); the dev run shows the demo ones.
console.log(startBanner(env, { dev, useDevnet, base }));

async function waitForHealthy(url: string): Promise<void> {
  for (;;) {
    if (stopping) return;
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function stop(code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const s of supervised) clearTimeout(s.timer);
  const children = supervised.flatMap((s) => (s.child && s.child.exitCode === null && s.child.signalCode === null ? [s.child] : []));
  await Promise.all(children.map((c) => new Promise((r) => { c.once('exit', r); c.kill('SIGTERM'); })));
  await embedded?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
