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
import { fundGasWalletOnDevnet } from './devnetGas';
import { applyLocalRunDefaults, devnetEnv, startBanner, webEnv } from './childEnv';

/**
 * Starts the whole service: database (embedded unless DATABASE_URL is set),
 * migrations, demo merchant, web app and worker, and stops them together.
 * `--dev` runs Next in development mode; otherwise a prior `next build` is served.
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
const children: ChildProcess[] = [];
let stopping = false;
function start(name: string, args: string[], childEnv: NodeJS.ProcessEnv = env): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/exitWithParent.ts', ...args], { env: childEnv, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

// The demo merchant exists where there is a key for it: always on a local run.
if (env.DEMO_API_KEY) {
  await new Promise<void>((resolve, reject) => {
    const seed = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed.ts'], { env, stdio: 'inherit' });
    seed.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seed failed (${code})`))));
  });
}

if (useDevnet) {
  start('devnet', ['devnet/cli.ts', 'start'], devnetEnv(env));
  await fundGasWalletOnDevnet(devnetUrl, deriveAccount(env.HD_MNEMONIC as string, 0, 'gas').address);
}
// The internet-facing web process never gets the mnemonic, the root of every fund (issue 16).
start('web', ['server.ts', ...(dev ? ['--dev'] : [])], webEnv(env));
start('worker', ['worker/main.ts']);

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
  await Promise.all(
    children.map((c) => (c.exitCode === null ? new Promise((r) => { c.once('exit', r); c.kill('SIGTERM'); }) : undefined)),
  );
  await embedded?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
