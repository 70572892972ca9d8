import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { alive } from '@/lib/db/embedded';
import { randomBytes } from 'node:crypto';
import { TEST_MNEMONIC } from './app';
import { httpRequest } from './http';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface DevRun {
  baseUrl: string;
  /** Secrets the run made and keeps in its data directory (data/dev-secrets.json). */
  secrets: Record<string, string>;
  output(): string;
  /** Pids of every process of the run: npm, the runner, the database, web, worker, devnet. */
  processes(): number[];
  /** SIGKILL to every process of the run at once, as a power cut would. */
  powerCut(): Promise<void>;
  /** SIGKILL to the runner alone (`scripts/run.ts`), leaving its children to notice. */
  killRunner(): Promise<void>;
  stop(): Promise<void>;
}

export interface DevRunPorts {
  web: number;
  devnet: number;
  db: number;
}

/** Children of each pid, read from /proc (Linux). */
function childrenByParent(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so split after ')'.
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      map.set(ppid, [...(map.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* exited meanwhile */
    }
  }
  return map;
}

/** Every process below `pid` (children, their children, ...), read from /proc (Linux). */
export function descendants(pid: number): number[] {
  const map = childrenByParent();
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of map.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** The command line of `pid`, its arguments joined by spaces ('' once it has exited). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Polls `check` until it holds; past `ms`, throws `what` with what `log` says. */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms: number, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} within ${ms} ms\n${log()}`);
}

/**
 * Runs `npm run dev` exactly as the README's first command does (no DATABASE_URL:
 * the embedded PostgreSQL), in its own process group, on the given ports and data
 * directory, and waits for the banner.
 */
export async function startDevRun(dataDir: string, ports: DevRunPorts, env: Record<string, string> = {}): Promise<DevRun> {
  const { DATABASE_URL: _omit, ...base } = process.env;
  const child: ChildProcess = spawn('npm', ['run', 'dev'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...base,
      DATA_DIR: dataDir,
      PORT: String(ports.web),
      DEVNET_PORT: String(ports.devnet),
      EMBEDDED_DB_PORT: String(ports.db),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const baseUrl = `http://127.0.0.1:${ports.web}`;
  const log = () => out.slice(-5000);
  const pgid = child.pid!;
  const everyone = () => [pgid, ...descendants(pgid)].filter(alive);
  const gone = async () => {
    const pids = everyone();
    await waitUntil('the run did not end', () => pids.every((p) => !alive(p)), 60_000, log);
  };
  // Every process of the run killed at once, as a power cut would, and waited for.
  const powerCut = async () => {
    for (const p of everyone()) killHard(p);
    await gone();
  };
  try {
    await waitUntil('npm run dev printed no banner', () => {
      if (child.exitCode !== null) throw new Error(`npm run dev exited (${child.exitCode})\n${log()}`);
      return /Dashboard:/.test(out);
    }, 180_000, log);
    await waitUntil('healthz did not answer 200', async () => (await httpRequest(`${baseUrl}/healthz`).catch(() => ({ status: 0 }))).status === 200, 60_000, log);
  } catch (err) {
    // A run that did not start is not left running: the caller never got it to stop, and its processes (their
    // output piped here) held the test file until its 25-minute timeout, failing the file's next cases on the
    // way (CI of stop 62, 2026-12-02: embedded-default's restart printed no banner in 180 s on a very busy machine).
    await powerCut().catch(() => undefined);
    throw err;
  }
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>;
  return {
    baseUrl,
    secrets,
    output: () => out,
    processes: everyone,
    powerCut,
    async killRunner() {
      // The runner is the parent of the processes it started with the exit-with-parent preload.
      const map = childrenByParent();
      const runner = descendants(pgid).find((p) => (map.get(p) ?? []).some((c) => /exitWithParent/.test(cmdline(c))));
      if (!runner) throw new Error(`no runner process found\n${log()}`);
      const pids = everyone();
      process.kill(runner, 'SIGKILL');
      // Web, worker and devnet end themselves (scripts/exitWithParent.ts); npm and tsx
      // above the runner then exit too. The database server is left orphaned: the next
      // start must deal with it.
      await waitUntil("the runner's children did not end", () => pids.every((p) => !alive(p) || comm(p) === 'postgres'), 60_000, log);
    },
    async stop() {
      if (everyone().length === 0) return;
      try {
        process.kill(-pgid, 'SIGINT');
      } catch {
        /* group already gone */
      }
      await gone().catch(async () => {
        for (const p of everyone()) killHard(p);
      });
    },
  };
}

/**
 * SIGKILL, where a process that has already ended is no error: it may end between the listing
 * and its kill (killing the runner makes its children exit themselves, scripts/exitWithParent.ts,
 * on the other core meanwhile). Callers still wait until every process has ended.
 */
function killHard(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/**
 * The environment of a production run (`npm start`, or scripts/run.ts) on the test server's
 * database `databaseUrl`: fresh secrets, the tests' seed, two web processes, the devnet on
 * `devnetPort` with 200 ms blocks, fixed rates; `extra` adds or overrides.
 */
export function productionRunEnv(o: { databaseUrl: string; dataDir: string; port: number; devnetPort: number }, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: o.databaseUrl,
    MASTER_KEY: randomBytes(32).toString('hex'),
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    HD_MNEMONIC: TEST_MNEMONIC,
    DATA_DIR: o.dataDir,
    HOST: '127.0.0.1',
    PORT: String(o.port),
    DEVNET_PORT: String(o.devnetPort),
    DEVNET_BLOCK_MS: '200',
    WEB_CONCURRENCY: '2',
    RATES_PROVIDER: 'fixed',
    RATES_FIXED_TRX_USD: '0.25',
    RATES_FIXED_USDT_USD: '1',
    ...extra,
  };
}
