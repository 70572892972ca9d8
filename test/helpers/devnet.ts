import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDevnetEnv } from '@/lib/config';
import { payFromFaucet } from '@/lib/devnet/faucet';
import type { Currency } from '@/lib/money/tokens';
import { faucetKey } from '@/devnet/genesis';
import type { ReorgResult } from '@/devnet/node';
import { bundled } from './bundle';

export { waitFor } from './wait';

const ROOT = resolve(import.meta.dirname, '../..');

/** Which broadcasts a fault applies to: by owner and/or recipient (base58), the next `count` (default: 1 without an address, all with one). */
export interface FaultMatch {
  from?: string;
  to?: string;
  count?: number;
}

export interface FaultInfo {
  id: number;
  kind: 'drop' | 'delay' | 'fail' | 'refuse';
  from: string | null;
  to: string | null;
  /** Matches left; null: unlimited. */
  count: number | null;
  blocks?: number;
  result?: 'OUT_OF_ENERGY' | 'REVERT';
  code?: string;
  message?: string;
  /** txids it applied to. */
  hits: string[];
}

// What POST /devnet/reorg answers is the node's own result type.
export type { ReorgResult };

/** The dev controls of docs/devnet.md ("Fault controls"), typed. */
export interface DevnetControls {
  fault: {
    /** Matching broadcasts are answered result:true and never included. */
    drop(match?: FaultMatch): Promise<FaultInfo>;
    /** Matching broadcasts are held `blocks` blocks, then executed against the state they meet. */
    delay(options: FaultMatch & { blocks: number }): Promise<FaultInfo>;
    /** Matching contract calls are included with this failed receipt. */
    fail(options: FaultMatch & { result: 'OUT_OF_ENERGY' | 'REVERT' }): Promise<FaultInfo>;
    /** Matching broadcasts are validated, then refused with this java-tron code and message (default: CONTRACT_VALIDATE_ERROR, TRX to a contract). */
    refuse(options?: FaultMatch & { code?: string; message?: string }): Promise<FaultInfo>;
    /** The replica (and the balancer's every other answer) serves the state `blocks` behind the head. */
    lag(blocks: number): Promise<void>;
    /** The next `count` node-API requests (on any of its ports) have their connection closed unanswered (socket hang up). */
    reset(count?: number): Promise<void>;
    /** For `seconds`, every node-API request is refused as over a provider's rate limit (429 and Retry-After unless told otherwise); `list()` counts them. */
    throttle(options: { seconds: number; status?: 429 | 403 | 503; retryAfter?: boolean }): Promise<void>;
    list(): Promise<{ faults: FaultInfo[]; held: Array<{ txid: string; releaseAt: number; fault: number }>; replicaLag: number; resets: { left: number; done: number }; throttle: { until: string | null; status: number; retryAfter: boolean; answered: number } }>;
    /** Removes every fault and sets the lag back to 0 (held broadcasts still come). */
    clear(): Promise<void>;
  };
  /**
   * Replaces the newest `depth` blocks, or block `fromBlock` and all above it (below the solidified depth),
   * leaving out or reordering transactions. Transactions whose reference block is replaced are dropped (TaPoS).
   */
  reorg(request: ({ depth: number } | { fromBlock: number }) & { leaveOut?: string[]; order?: string[] }): Promise<ReorgResult>;
  /** Makes every block up to the head final now (a block is made at once); resolves to the newest solidified block. */
  solidify(): Promise<{ solidifiedBlock: number }>;
  /** POST /devnet/finality: stops finality where it is (held) or lets it advance again; resolves to the solidified block. */
  holdFinality(held?: boolean): Promise<{ held: boolean; solidifiedBlock: number }>;
  /** Sets TRX (sun) and/or USDT (base units) of an address as of the next block; TRX > 0 activates it. */
  setBalance(address: string, balances: { balanceSun?: bigint; usdtUnits?: bigint }): Promise<void>;
  /** POST /devnet/usdt/blacklist: puts `address` on (or, `frozen` false, off) the USDT contract's blacklist. */
  blacklist(address: string, frozen?: boolean): Promise<void>;
  /** Pays `amount` (decimal text) of `currency` from the faucet, as a customer's wallet would; resolves to the txid (lib/devnet/faucet.ts). */
  pay(address: string, amount: string, currency: Currency): Promise<string>;
  /**
   * POST /devnet/pay-via-contract: pays through the devnet's payer contract (TRX as an internal transaction, USDT with
   * transferFrom); `reverted` (TRX): the contract's inner call reverts, so its "transfer" pays nothing. Resolves to the txid.
   */
  payViaContract(address: string, amount: string, currency: Currency, options?: { reverted?: boolean }): Promise<string>;
  /** POST /devnet/fake-token/pay: a look-alike "Tether USD" (symbol USDT) token's transfer to `address`; resolves to the txid. */
  payFakeToken(address: string, amount: string): Promise<string>;
  /** POST /devnet/traffic: mainnet-shaped transactions among the devnet's own accounts in every block from now on (0 stops them). */
  traffic(txPerBlock: number, usdtShare?: number): Promise<{ txPerBlock: number; usdtShare: number }>;
  /** Changes chain parameters mid-run (getchainparameters follows). */
  setChainParameters(parameters: { energyFeeSun?: bigint; bandwidthFeeSun?: bigint; usdtEnergyFactor?: bigint; unfreezeDelayDays?: bigint; networkEnergyWeightTrx?: bigint }): Promise<void>;
  /** The emulated energy rental provider (devnet/rental.ts): its failure mode and price; `reset` puts the defaults back. */
  rental: {
    set(control: { mode?: 'ok' | 'down' | 'partial' | 'slow'; price_sun_per_energy?: number; delay_blocks?: number; partial_percent?: number; period_ms?: number; charge_sun_per_energy?: number; lose_answers?: number; refuse_orders?: string }): Promise<RentalInfo>;
    get(): Promise<RentalInfo>;
    reset(): Promise<RentalInfo>;
  };
}

export interface RentalInfo {
  mode: string;
  price_sun_per_energy: number;
  provider: string;
  orders: number;
  spent_sun: string;
  balance_sun: string;
}

export interface DevnetProcess extends DevnetControls {
  url: string;
  /** The node API served `lag` blocks behind the head (0 until fault.lag). */
  replicaUrl: string;
  /** Alternates requests between `url` and `replicaUrl`, as a load-balanced provider can. */
  balancerUrl: string;
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
  /**
   * Pauses its process for `ms` (SIGSTOP, then SIGCONT), as a loaded machine stalls it: no block is made and no
   * request answered meanwhile, and every block made before turns final that much later after its stamp.
   */
  stall(ms: number): Promise<void>;
}

interface Ready {
  url: string;
  replicaUrl: string;
  balancerUrl: string;
  usdtContract: string;
  faucetAddress: string;
}

/** One dev-control request; a non-2xx answer throws with the devnet's `error`. */
export async function devnetControl<T>(url: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${url}/devnet/${path}`, {
    method,
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) } : {}),
  });
  const reply = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(`devnet ${path}: ${res.status} ${reply.error ?? JSON.stringify(reply)}`);
  return reply;
}

function controls(url: string): DevnetControls {
  const post = <T>(path: string, body: Record<string, unknown>) => devnetControl<T>(url, 'POST', path, body);
  return {
    fault: {
      drop: (match = {}) => post('fault/drop', { ...match }),
      delay: (options) => post('fault/delay', { ...options }),
      fail: (options) => post('fault/fail', { ...options }),
      refuse: (options = {}) => post('fault/refuse', { ...options }),
      lag: async (blocks) => void (await post('fault/lag', { blocks })),
      reset: async (count = 1) => void (await post('fault/reset', { count })),
      throttle: async (options) => void (await post('fault/throttle', { ...options })),
      list: () => devnetControl(url, 'GET', 'faults'),
      clear: async () => void (await devnetControl(url, 'DELETE', 'faults')),
    },
    reorg: (request) => post('reorg', { ...request }),
    solidify: () => post('solidify', {}),
    holdFinality: (held = true) => post('finality', { held }),
    setBalance: async (address, balances) => void (await post('set-balance', { address, ...balances })),
    blacklist: async (address, frozen = true) => void (await post('usdt/blacklist', { address, frozen })),
    setChainParameters: async (parameters) => void (await post('chain-parameters', { ...parameters })),
    pay: (address, amount, currency) => payFromFaucet(url, { address, amount, currency }),
    payViaContract: async (address, amount, currency, options = {}) => (await post<{ txid: string }>('pay-via-contract', { address, amount, currency, ...options })).txid,
    payFakeToken: async (address, amount) => (await post<{ txid: string }>('fake-token/pay', { address, amount })).txid,
    traffic: async (txPerBlock, usdtShare) => (await post<{ traffic: { txPerBlock: number; usdtShare: number } }>('traffic', { txPerBlock, ...(usdtShare === undefined ? {} : { usdtShare }) })).traffic,
    rental: {
      set: (control) => post('rental', { ...control }),
      get: () => devnetControl(url, 'GET', 'rental'),
      reset: () => devnetControl(url, 'DELETE', 'rental'),
    },
  };
}

function launch(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; ready: Ready }> {
  // From its bundle (scripts/bundle.ts), as the web and the worker: about 0.55 s to ready where
  // tsx compiling devnet/ took about 0.95 s, at each of the suite's devnet starts (issue 41).
  const child = spawn(process.execPath, [...bundled('devnet'), 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((ok, fail) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`devnet did not start within 120 s\n${stdout}${stderr}`));
    }, 120_000);
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
    DEVNET_REPLICA_PORT: '0',
    DEVNET_BALANCER_PORT: '0',
  };
  let { child, ready } = await launch(env);
  const faucet = faucetKey(parseDevnetEnv(env));
  // A restart comes back on the same ports.
  env.DEVNET_PORT = new URL(ready.url).port;
  env.DEVNET_REPLICA_PORT = new URL(ready.replicaUrl).port;
  env.DEVNET_BALANCER_PORT = new URL(ready.balancerUrl).port;
  return {
    ...ready,
    ...controls(ready.url),
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
    stall: async (ms) => {
      child.kill('SIGSTOP');
      try {
        await new Promise((r) => setTimeout(r, ms));
      } finally {
        child.kill('SIGCONT');
      }
    },
  };
}
