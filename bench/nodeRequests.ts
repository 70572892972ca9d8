/**
 * What a deployment asks of its node provider (issue 37): requests to the Tron node, counted by the
 * chain layer (lib/chain/meter.ts) and read from /metrics (every live worker's and the web's), on a
 * devnet with mainnet timing (3 s blocks, final 19 deep), the real app and the real worker with the
 * default run's settings (its energy pool staked).
 *   - idle, no invoice open: `node_requests_per_block{state=idle}` and, at 28,800 blocks a day,
 *     `node_requests_per_day{state=idle}`;
 *   - BENCH_INVOICES SINGLE invoices per token (default 3) paid at once, each followed to COMPLETED:
 *     what they cost beyond the idle rate over the same time, per invoice:
 *     `node_requests_per_invoice{token=TRX|USDT}`.
 * The figures issue 37 asks for under mainnet traffic (`scan_*`, `bench:ingest`) need the devnet's
 * traffic control, not built yet. Needs PostgreSQL at TEST_DATABASE_URL and a build.
 *   npm run bench:node-requests        (BENCH_IDLE_S, default 120; BENCH_INVOICES, default 3)
 */
import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import { deriveAccount } from '@/lib/chain/keys';
import { startApp, TEST_MNEMONIC } from '../test/helpers/app';
import { startDevnetProcess, waitFor } from '../test/helpers/devnet';
import { startWorker } from '../test/helpers/worker';

const BLOCK_MS = 3000;
const DEPTH = 19;
const FINALITY_MS = BLOCK_MS * DEPTH;
const IDLE_MS = Number(process.env.BENCH_IDLE_S ?? 120) * 1000;
const PER_TOKEN = Number(process.env.BENCH_INVOICES ?? 3);
const BLOCKS_A_DAY = 86_400_000 / BLOCK_MS;

const devnet = await startDevnetProcess({ blockMs: BLOCK_MS, solidifiedDepth: DEPTH });
const app = await startApp({ TRON_FULL_NODE_URL: devnet.url, TRON_USDT_CONTRACT: devnet.usdtContract });
const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });
// The worker as deployed: the configuration's defaults (lib/config.ts), not the tests' fast polls (test/helpers/worker.ts).
const worker = startWorker(app.env, devnet, { WORKER_POLL_MS: '1000', SCAN_POLL_MS: '1000', WORKER_IDLE_MS: '1000', ENERGY_POLL_MS: '3000', HEAD_SCAN_POLL_MS: '500', LEASE_SECONDS: '60', LEADER_LEASE_SECONDS: '30', ENERGY_POOL_AUTOSTAKE: '1500000:100000' });
const customer = TronWeb.createRandom() as unknown as { address: string; privateKey: string };

/** Every request to the node so far, by the worker(s) and the web, from /metrics: in all and by endpoint. */
async function requestsSoFar(): Promise<{ total: number; byEndpoint: Map<string, number> }> {
  const body = await (await fetch(`${app.baseUrl}/metrics`)).text();
  const byEndpoint = new Map<string, number>();
  for (const m of body.matchAll(/^invoicing_node_requests_total\{[^}]*endpoint="([^"]+)"\} (\d+)$/gm)) byEndpoint.set(m[1]!, (byEndpoint.get(m[1]!) ?? 0) + Number(m[2]));
  return { total: [...byEndpoint.values()].reduce((a, b) => a + b, 0), byEndpoint };
}

/** Requests counted over `ms` of waiting, with the time it really took. */
async function over(ms: number, work: () => Promise<unknown> = () => new Promise((r) => setTimeout(r, ms))): Promise<{ requests: number; ms: number; byEndpoint: Map<string, number> }> {
  // The worker writes its counts with its heartbeat (every 5 s): read them after a beat on both sides.
  await new Promise((r) => setTimeout(r, 6_000));
  const before = await requestsSoFar();
  const t0 = Date.now();
  await work();
  const took = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 6_000));
  const after = await requestsSoFar();
  const byEndpoint = new Map([...after.byEndpoint].map(([e, n]) => [e, n - (before.byEndpoint.get(e) ?? 0)]));
  return { requests: after.total - before.total, ms: took + 12_000, byEndpoint };
}

const lines: string[] = [];
try {
  const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;
  await devnet.pay(gas, '2000000', 'TRX');
  await devnet.pay(customer.address, '1000000', 'TRX');
  await devnet.pay(customer.address, '1000000', 'USDT');
  await waitFor('the energy pool staked', async () => (await chain.getStake(gas)).frozenSun.ENERGY > 0n, 10 * FINALITY_MS);
  await waitFor('the customer funded', async () => (await chain.getUsdtBalance(customer.address)) > 0n, 10 * FINALITY_MS);
  // Past its start (catching up, staking): idle as a deployment is between payments.
  await new Promise((r) => setTimeout(r, FINALITY_MS));

  const idle = await over(IDLE_MS);
  const idlePerMs = idle.requests / idle.ms;
  lines.push(`node_requests_per_block{state=idle}=${(idlePerMs * BLOCK_MS).toFixed(2)}`);
  lines.push(`node_requests_per_day{state=idle}=${Math.round(idlePerMs * BLOCK_MS * BLOCKS_A_DAY)}`);
  const perBlock = [...idle.byEndpoint].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([e, n]) => `${e} ${((n / idle.ms) * BLOCK_MS).toFixed(2)}`);
  lines.push(`# idle, per block, by endpoint: ${perBlock.join(', ')}`);

  const target = (TronWeb.createRandom() as unknown as { address: string }).address;
  const { key } = await app.createMerchant({ targetWallet: target });
  for (const token of ['TRX', 'USDT'] as const) {
    const paid = await over(0, async () => {
      const invoices = [];
      for (let i = 0; i < PER_TOKEN; i++) {
        const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: [token], expiry_minutes: 60 } });
        if (res.status !== 200) throw new Error(`create: ${res.status} ${res.text}`);
        invoices.push(res.json as { id: number; address: string; currencies_amounts: Record<string, number> });
      }
      await Promise.all(
        invoices.map(async (inv) => {
          const units = BigInt(Math.round(inv.currencies_amounts[token]! * 1e6));
          const signed = token === 'TRX' ? await chain.buildSignedTrxTransfer(customer.privateKey, inv.address, units) : await chain.buildSignedUsdtTransfer(customer.privateKey, inv.address, units, 50_000_000n);
          await chain.broadcast(signed.signedTx);
          await waitFor(`invoice ${inv.id} COMPLETED`, async () => (await app.api(`/payment/get/${inv.id}`, key)).json.status === 'COMPLETED', 10 * FINALITY_MS);
        }),
      );
    });
    const beyondIdle = paid.requests - idlePerMs * paid.ms;
    lines.push(`node_requests_per_invoice{token=${token}}=${Math.round(beyondIdle / PER_TOKEN)}`);
  }
  console.log(`# idle ${IDLE_MS / 1000} s; ${PER_TOKEN} SINGLE invoices per token paid at once; blocks every ${BLOCK_MS} ms, final ${DEPTH} deep; requests of the worker and the web, from /metrics`);
  for (const line of lines) console.log(line);
} finally {
  await worker.stop();
  await app.stop();
  await devnet.stop();
}
