import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { DevnetProcess } from './devnet';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface WorkerProcess {
  pid: number;
  output(): string;
  /** SIGKILL, as a power cut would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended on its own or been stopped. */
  exited(): Promise<number | null>;
}

/**
 * Runs worker/main.ts as `npm run dev` does, with the app's settings (database, keys) and the test
 * devnet; `detached`, in a process group of its own, as on another host.
 */
export function startWorker(appEnv: Record<string, string>, devnet: DevnetProcess, env: Record<string, string> = {}, options: { detached?: boolean } = {}): WorkerProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    detached: options.detached ?? false,
    env: {
      ...process.env,
      ...appEnv,
      TRON_FULL_NODE_URL: devnet.url,
      TRON_USDT_CONTRACT: devnet.usdtContract,
      WORKER_POLL_MS: '50',
      // A killed worker's claims are taken over once its lease runs out; keep that short in tests.
      LEASE_SECONDS: '5',
      // ... and a dead worker's singleton jobs (the scanner) once its leader lease does.
      LEADER_LEASE_SECONDS: '5',
      SCAN_START_BLOCK: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...env,
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
  return { pid: child.pid!, output: () => out, kill: () => exit('SIGKILL'), stop: () => exit('SIGTERM'), exited: () => ended };
}
