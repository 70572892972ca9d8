import { createServer } from 'node:http';
import { TronWeb } from 'tronweb';
import { createChain, type Chain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { freePort, startApp, TEST_MNEMONIC, type TestApp } from '../test/helpers/app';
import { startDevnetProcess, waitFor, type DevnetProcess } from '../test/helpers/devnet';
import { startWorker, type WorkerProcess } from '../test/helpers/worker';

/**
 * A deployment as the benchmarks of issue 37 measure it: a devnet with mainnet timing (3 s blocks,
 * final 19 deep), the real app and the real worker with the default run's settings (lib/config.ts's
 * defaults, not the tests' fast polls; its energy pool staked), a customer wallet holding TRX and
 * USDT. Shared by bench:node-requests and bench:ingest.
 */
export const BLOCK_MS = 3000;
export const DEPTH = 19;
export const FINALITY_MS = BLOCK_MS * DEPTH;
export const BLOCKS_A_DAY = 86_400_000 / BLOCK_MS;

export type Token = 'TRX' | 'USDT';

export interface MainnetStack {
  devnet: DevnetProcess;
  app: TestApp;
  chain: Chain;
  worker: WorkerProcess;
  customer: { address: string; privateKey: string };
  stop(): Promise<void>;
}

export async function startMainnetStack(appEnv: Record<string, string> = {}): Promise<MainnetStack> {
  const devnet = await startDevnetProcess({ blockMs: BLOCK_MS, solidifiedDepth: DEPTH });
  const app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract, ...appEnv });
  const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
  const worker = startWorker(app.env, devnet, { WORKER_POLL_MS: '1000', SCAN_POLL_MS: '1000', WORKER_IDLE_MS: '1000', ENERGY_POLL_MS: '3000', HEAD_SCAN_POLL_MS: '500', LEASE_SECONDS: '60', LEADER_LEASE_SECONDS: '30', ENERGY_POOL_AUTOSTAKE: '1500000:100000' });
  const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };
  const stop = async () => {
    await worker.stop();
    await app.stop();
    await devnet.stop();
  };
  try {
    const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;
    await devnet.pay(gas, '2000000', 'TRX');
    await devnet.pay(customer.address, '1000000', 'TRX');
    await devnet.pay(customer.address, '1000000', 'USDT');
    await waitFor('the energy pool staked', async () => (await chain.getStake(gas)).frozenSun.ENERGY > 0n, 10 * FINALITY_MS);
    await waitFor('the customer funded', async () => (await chain.getUsdtBalance(customer.address)) > 0n, 10 * FINALITY_MS);
    // Past its start (catching up, staking): idle as a deployment is between payments. The pool's stakes
    // are sends of ours until final (a finality period each, one after the other); while one is in
    // flight the scanner of solidified blocks reads every block, as it must (lib/payments/scan.ts,
    // finalityAwaited): a window that began then counted a deployment's first minutes, not its idle.
    await new Promise((r) => setTimeout(r, FINALITY_MS));
    await waitFor('nothing of ours in flight', async () => (await app.prisma.transaction.count({ where: { sendState: { in: ['SIGNED', 'BROADCAST'] } } })) === 0, 10 * FINALITY_MS);
  } catch (err) {
    await stop();
    throw err;
  }
  return { devnet, app, chain, worker, customer, stop };
}

/** SINGLE invoices for 10 USD in `token`, made through the API. */
export async function createInvoices(app: TestApp, key: string, token: Token, count: number): Promise<Array<{ id: number; address: string; units: bigint }>> {
  const invoices = [];
  for (let i = 0; i < count; i++) {
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: [token], expiry_minutes: 60 } });
    if (res.status !== 200) throw new Error(`create: ${res.status} ${res.text}`);
    const inv = res.json as { id: number; address: string; currencies_amounts: Record<string, number> };
    invoices.push({ id: inv.id, address: inv.address, units: BigInt(Math.round(inv.currencies_amounts[token]! * 1e6)) });
  }
  return invoices;
}

/** Pays an invoice in full from the customer's wallet, as tronweb would; resolves to the txid. */
export async function payInvoice(stack: MainnetStack, token: Token, inv: { address: string; units: bigint }): Promise<string> {
  const { chain, customer } = stack;
  const signed = token === 'TRX' ? await chain.buildSignedTrxTransfer(customer.privateKey, inv.address, inv.units) : await chain.buildSignedUsdtTransfer(customer.privateKey, inv.address, inv.units, 50_000_000n);
  return (await chain.broadcast(signed.signedTx)).txId;
}

/** Every request to the node so far, by the worker(s) and the web, from /metrics: in all and by endpoint. */
async function requestsSoFar(app: TestApp): Promise<{ total: number; byEndpoint: Map<string, number> }> {
  const body = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const byEndpoint = new Map<string, number>();
  for (const m of body.matchAll(/^invoicing_node_requests_total\{[^}]*endpoint="([^"]+)"\} (\d+)$/gm)) byEndpoint.set(m[1]!, (byEndpoint.get(m[1]!) ?? 0) + Number(m[2]));
  return { total: [...byEndpoint.values()].reduce((a, b) => a + b, 0), byEndpoint };
}

/** Requests counted over `ms` of waiting (or over `work`), with the time it really took. */
export async function over(app: TestApp, ms: number, work: () => Promise<unknown> = () => new Promise((r) => setTimeout(r, ms))): Promise<{ requests: number; ms: number; byEndpoint: Map<string, number> }> {
  // The worker writes its counts with its heartbeat (every 5 s): read them after a beat on both sides.
  await new Promise((r) => setTimeout(r, 6_000));
  const before = await requestsSoFar(app);
  const t0 = Date.now();
  await work();
  const took = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 6_000));
  const after = await requestsSoFar(app);
  const byEndpoint = new Map([...after.byEndpoint].map(([e, n]) => [e, n - (before.byEndpoint.get(e) ?? 0)]));
  return { requests: after.total - before.total, ms: took + 12_000, byEndpoint };
}

/**
 * What the deployment asks of its node provider: idle over `idleMs` (`node_requests_per_block`,
 * `node_requests_per_day`, by endpoint), then `perToken` invoices per token paid at once, each
 * followed to COMPLETED, beyond the idle rate over the same time (`node_requests_per_invoice`).
 */
export async function nodeRequestLines(stack: MainnetStack, idleMs: number, perToken: number): Promise<string[]> {
  const { app } = stack;
  const lines: string[] = [];
  const idle = await over(app, idleMs);
  const idlePerMs = idle.requests / idle.ms;
  lines.push(`node_requests_per_block{state=idle}=${(idlePerMs * BLOCK_MS).toFixed(2)}`);
  lines.push(`node_requests_per_day{state=idle}=${Math.round(idlePerMs * BLOCK_MS * BLOCKS_A_DAY)}`);
  const perBlock = [...idle.byEndpoint].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([e, n]) => `${e} ${((n / idle.ms) * BLOCK_MS).toFixed(2)}`);
  lines.push(`# idle, per block, by endpoint: ${perBlock.join(', ')}`);

  const target = (TronWeb.createRandom() as unknown as { address: string }).address;
  const { key } = await app.createMerchant({ targetWallet: target });
  for (const token of ['TRX', 'USDT'] as const) {
    const paid = await over(app, 0, async () => {
      const invoices = await createInvoices(app, key, token, perToken);
      await Promise.all(
        invoices.map(async (inv) => {
          await payInvoice(stack, token, inv);
          await waitFor(`invoice ${inv.id} COMPLETED`, async () => (await app.api(`/payment/get/${inv.id}`, key)).json.status === 'COMPLETED', 10 * FINALITY_MS);
        }),
      );
    });
    const beyondIdle = paid.requests - idlePerMs * paid.ms;
    lines.push(`node_requests_per_invoice{token=${token}}=${Math.round(beyondIdle / perToken)}`);
    // Where they went: each endpoint's requests during the invoices less its own idle rate over the
    // same time, per invoice (an endpoint the idle worker also asks, the scanners' block reads, is
    // what the invoices added to it; rounding, the figures need not sum to the line above).
    const byEndpoint = [...paid.byEndpoint]
      .map(([e, n]) => [e, (n - ((idle.byEndpoint.get(e) ?? 0) / idle.ms) * paid.ms) / perToken] as const)
      .filter(([, n]) => Math.abs(n) >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .map(([e, n]) => `${e} ${n.toFixed(1)}`);
    lines.push(`# ${token}, per invoice beyond idle, by endpoint: ${byEndpoint.join(', ')}`);
  }
  return lines;
}

/**
 * A merchant's webhook receiver that notes when each invoice's first COMPLETED webhook arrived
 * (the end of "the merchant hears paid"): `at` maps invoice id to Date.now() at arrival.
 */
export async function completedHooks(): Promise<{ url: string; at: Map<number, number>; close(): void }> {
  const at = new Map<number, number>();
  const port = await freePort();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      try {
        const json = JSON.parse(body) as { id: number; status: string };
        if (json.status === 'COMPLETED' && !at.has(json.id)) at.set(json.id, Date.now());
      } catch {
        // Not an invoice's webhook (a connection cut mid-body): nothing to time.
      }
      res.end('ok');
    });
  }).listen(port, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}/hook`, at, close: () => server.close() };
}
