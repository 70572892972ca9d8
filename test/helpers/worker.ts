import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { bundled } from './bundle';
import type { DevnetProcess } from './devnet';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface WorkerProcess {
  pid: number;
  output(): string;
  /**
   * SIGKILL, as a power cut would; then its database connections are ended, as the server would end
   * them once it noticed: a statement the dead worker had sent, waiting on a test's lock, never runs.
   */
  kill(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended on its own or been stopped. */
  exited(): Promise<number | null>;
}

/**
 * Runs the worker as `npm start` does (dist/worker.mjs, the bundle of worker/main.ts), with the app's settings (database, keys) and the test
 * devnet; `detached`, in a process group of its own, as on another host.
 */
export function startWorker(appEnv: Record<string, string>, devnet: DevnetProcess, env: Record<string, string> = {}, options: { detached?: boolean; followsEnergy?: boolean } = {}): WorkerProcess {
  // Its connections carry a name of their own, so that kill() can end exactly them.
  const applicationName = `worker-${randomUUID()}`;
  const databaseUrl = env.DATABASE_URL ?? appEnv.DATABASE_URL;
  const named = databaseUrl ? { DATABASE_URL: withApplicationName(databaseUrl, applicationName) } : {};
  const child: ChildProcess = spawn(process.execPath, bundled('worker'), {
    cwd: ROOT,
    detached: options.detached ?? false,
    env: {
      ...process.env,
      ...appEnv,
      TRON_FULL_NODE_URL: devnet.url,
      TRON_USDT_CONTRACT: devnet.usdtContract,
      // How soon a claimed row that waits (a payment whose forward is not in a block yet) is claimed
      // again (lib/worker/lease.ts): every 50 ms, the payments job's claim, load and release were
      // most of a chain file's statements (settlement: 5,009 claims in 151 s); every 200 ms
      // settlement took 80 CPU s against 93, in as long (issue 41, docs/testing.md).
      WORKER_POLL_MS: '200',
      // The solidified blocks every 200 ms: on the tests' 50-200 ms devnets, read every 50 ms an idle
      // worker spent 3.6 s of CPU in 20 s, every 200 ms 2.3 s (issue 41); the head scanner, which
      // sees payments first, keeps its own HEAD_SCAN_POLL_MS.
      SCAN_POLL_MS: '200',
      // Idle jobs sleep a second, woken sooner by work (lib/worker/wake.ts): eighteen jobs polling
      // every 50 ms cost a worker a third of a core and PostgreSQL a fifth while nothing happened (issue 41).
      WORKER_IDLE_MS: '1000',
      // The energy pool's upkeep: every 500 ms for a worker with a pool or a rental provider, or whose
      // test follows its sends, lendings and takings back (`followsEnergy`); else production's 3 s. Its
      // round's dozen statements every 500 ms were a third of an idle worker's, in every stack (issue 41).
      ENERGY_POLL_MS: options.followsEnergy || env.ENERGY_POOL_AUTOSTAKE || env.ENERGY_RENTAL_URL || env.ENERGY_RENTAL_API_KEY ? '500' : '3000',
      // A killed worker's claims are taken over once its lease runs out; keep that short in tests.
      LEASE_SECONDS: '5',
      // ... and a dead worker's singleton jobs (the scanner) once its leader lease does.
      LEADER_LEASE_SECONDS: '5',
      SCAN_START_BLOCK: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...env,
      ...named,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const exit = (signal: NodeJS.Signals) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((r) => {
          child.once('exit', () => r());
          child.kill(signal);
        });
  const ended = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const kill = async () => {
    await exit('SIGKILL');
    if (databaseUrl) await endConnections(databaseUrl, applicationName);
  };
  return { pid: child.pid!, output: () => out, kill, stop: () => exit('SIGTERM'), exited: () => ended };
}

function withApplicationName(databaseUrl: string, applicationName: string): string {
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', applicationName);
  return url.toString();
}

/** Ends every backend of `applicationName`, waiting (up to 10 s each) until each has ended. */
async function endConnections(databaseUrl: string, applicationName: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // A database already stopped (a test's teardown) holds no connection of it.
  if (!(await client.connect().then(() => true, () => false))) return;
  try {
    await client.query('SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
  } finally {
    await client.end();
  }
}
