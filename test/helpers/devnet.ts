import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDevnetEnv } from '@/devnet/config';
import { faucetKey } from '@/devnet/genesis';

const ROOT = resolve(import.meta.dirname, '../..');

export interface DevnetProcess {
  url: string;
  usdtContract: string;
  faucetAddress: string;
  faucetPrivateKey: string;
  dataDir: string;
  blockMs: number;
  solidifiedDepth: number;
  /** Stops the devnet and deletes its data. */
  stop(): Promise<void>;
  /** Stops it (SIGKILL with `crash`, as a power cut would) and starts it again on the same port and data. */
  restart(options?: { crash?: boolean }): Promise<void>;
}

interface Ready {
  url: string;
  usdtContract: string;
  faucetAddress: string;
}

function launch(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'devnet/cli.ts', 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((ok, fail) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`devnet did not start within 30 s\n${stdout}${stderr}`));
    }, 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^DEVNET_READY (.+)$/m.exec(stdout);
      if (line) {
        clearTimeout(timer);
        ok({ child, ready: JSON.parse(line[1]!) as Ready });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`devnet exited with ${code}\n${stdout}${stderr}`));
    });
  });
}

function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((ok) => {
    child.once('exit', () => ok());
    child.kill(signal);
  });
}

/** Runs the devnet as the README does, in a child process, with fast blocks and a temporary data directory. */
export async function startDevnetProcess(options: { blockMs?: number; solidifiedDepth?: number } = {}): Promise<DevnetProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'devnet-test-'));
  const blockMs = options.blockMs ?? 50;
  const solidifiedDepth = options.solidifiedDepth ?? 3;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEVNET_HOST: '127.0.0.1',
    DEVNET_PORT: '0',
    DEVNET_DATA_DIR: dataDir,
    DEVNET_BLOCK_MS: String(blockMs),
    DEVNET_SOLIDIFIED_DEPTH: String(solidifiedDepth),
  };
  let { child, ready } = await launch(env);
  const faucet = faucetKey(parseDevnetEnv(env));
  env.DEVNET_PORT = new URL(ready.url).port;
  return {
    ...ready,
    faucetPrivateKey: faucet.privateKey,
    dataDir,
    blockMs,
    solidifiedDepth,
    stop: async () => {
      await exited(child, 'SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
    restart: async ({ crash = false } = {}) => {
      await exited(child, crash ? 'SIGKILL' : 'SIGTERM');
      ({ child, ready } = await launch(env));
    },
  };
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
