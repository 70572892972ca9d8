/**
 * The scanner under mainnet traffic (issue 37): a devnet with mainnet timing whose blocks carry
 * mainnet-shaped traffic (devnet/traffic.ts: 300 transactions a 3 s block at 1x, 3,000 at 10x, 70 %
 * USDT), the real app and the real worker with the default run's settings (bench/mainnetStack.ts).
 *   - `scan_cpu_ms_per_block{load=1x|10x}`: the worker process's CPU (user + system, from
 *     /proc/<pid>/stat) over a window, per block its head scanner advanced; at 10x the window holds
 *     the payments below, so it is the worker's whole CPU while it also forwards;
 *   - `scan_lag_blocks{load=10x,stat=p99}`: the head block minus the head scanner's cursor
 *     (chain_cursors 'head'), sampled every 500 ms through the 10x window;
 *   - `completed_over_finality{token=USDT,load=10x,stat=p50}`: BENCH_PAYMENTS USDT invoices (default
 *     6) paid at random moments over 30 s at 10x, from the block that holds the payment to the
 *     COMPLETED webhook reaching the merchant, over the finality period (19 x 3 s), as
 *     bench:latency measures it;
 *   - `node_requests_*`: as bench:node-requests, without traffic (BENCH_IDLE_S, default 60;
 *     BENCH_INVOICES, default 2).
 * Needs PostgreSQL at TEST_DATABASE_URL and a build.
 *   npm run bench:ingest        (BENCH_WINDOW_S, default 60: the 1x window, which also counts
 *   what an idle deployment asks of its node under mainnet's traffic, by endpoint)
 */
import { readFileSync } from 'node:fs';
import { TronWeb } from 'tronweb';
import { HEAD_CURSOR } from '@/lib/db/chainCursors';
import { waitFor } from '../test/helpers/devnet';
import { BLOCK_MS, completedHooks, createInvoices, DEPTH, FINALITY_MS, nodeRequestLines, over, payInvoice, startMainnetStack, type MainnetStack } from './mainnetStack';

const WINDOW_MS = Number(process.env.BENCH_WINDOW_S ?? 60) * 1000;
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 6);
const IDLE_MS = Number(process.env.BENCH_IDLE_S ?? 60) * 1000;
const PER_TOKEN = Number(process.env.BENCH_INVOICES ?? 2);
const MAINNET_TX_PER_BLOCK = 300;
const USDT_SHARE = 0.7;
const TICK_MS = 1000 / 100; // USER_HZ

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
};

/** The worker process's CPU so far (ms). */
function workerCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const headBlock = async (stack: MainnetStack) => ((await (await fetch(`${stack.devnet.url}/devnet/info`)).json()) as { headBlock: number }).headBlock;
const scannedHead = async (stack: MainnetStack) => Number((await stack.app.prisma.chainCursor.findUnique({ where: { name: HEAD_CURSOR } }))?.blockNumber ?? 0);

/** Runs `work` at `txPerBlock` traffic; the worker's CPU per block scanned and the scanner's lag sampled every 500 ms. */
async function underTraffic(stack: MainnetStack, txPerBlock: number, work: () => Promise<unknown>): Promise<{ cpuMsPerBlock: number; lags: number[]; blocks: number }> {
  await stack.devnet.traffic(txPerBlock, USDT_SHARE);
  // Two blocks of traffic before the window: the scanner meets it from the first.
  const start = await headBlock(stack);
  await waitFor('traffic in the blocks', async () => (await scannedHead(stack)) >= start + 2, 10 * FINALITY_MS);
  const lags: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      lags.push((await headBlock(stack)) - (await scannedHead(stack)));
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  const cpu0 = workerCpuMs(stack.worker.pid);
  const scanned0 = await scannedHead(stack);
  await work();
  const cpu1 = workerCpuMs(stack.worker.pid);
  const scanned1 = await scannedHead(stack);
  sampling = false;
  await sampler;
  await stack.devnet.traffic(0);
  const blocks = scanned1 - scanned0;
  return { cpuMsPerBlock: (cpu1 - cpu0) / Math.max(1, blocks), lags, blocks };
}

const hooks = await completedHooks();

const stack = await startMainnetStack();
// Each figure printed as soon as it is measured: a scanner that falls behind makes the later phases long.
const lines = { push: (...xs: string[]) => xs.forEach((x) => console.log(x)) };
console.log(`# blocks every ${BLOCK_MS} ms, final ${DEPTH} deep; traffic ${MAINNET_TX_PER_BLOCK} (1x) and ${10 * MAINNET_TX_PER_BLOCK} (10x) transactions a block, ${USDT_SHARE * 100} % USDT; worker with the default run's settings`);
try {
  // The 1x window is also what an idle deployment asks of its node under mainnet's traffic (no invoice paid).
  let asked: Awaited<ReturnType<typeof over>> | undefined;
  const oneX = await underTraffic(stack, MAINNET_TX_PER_BLOCK, async () => (asked = await over(stack.app, WINDOW_MS)));
  lines.push(`scan_cpu_ms_per_block{load=1x}=${oneX.cpuMsPerBlock.toFixed(1)}`);
  lines.push(`# 1x: ${oneX.blocks} blocks scanned in ${WINDOW_MS / 1000} s; lag p99 ${quantile(oneX.lags, 0.99)} blocks`);
  const perBlock = (n: number) => ((n / asked!.ms) * BLOCK_MS).toFixed(2);
  lines.push(`# 1x, no invoice: node requests per block ${perBlock(asked!.requests)}: ${[...asked!.byEndpoint].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([e, n]) => `${e} ${perBlock(n)}`).join(', ')}`);

  const target = (TronWeb.createRandom() as unknown as { address: string }).address;
  const { merchant, key } = await stack.app.createMerchant({ targetWallet: target });
  await stack.app.prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: hooks.url } });
  const invoices = await createInvoices(stack.app, key, 'USDT', PAYMENTS);
  const ratios: number[] = [];
  const tenX = await underTraffic(stack, 10 * MAINNET_TX_PER_BLOCK, () =>
    Promise.all(
      invoices.map(async (inv) => {
        await new Promise((r) => setTimeout(r, Math.random() * 30_000));
        const txid = await payInvoice(stack, 'USDT', inv);
        const included = await waitFor(`${txid} in a block`, async () => {
          const res = await fetch(`${stack.devnet.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txid }) });
          return ((await res.json()) as { blockTimeStamp?: number }).blockTimeStamp ?? null;
        }, 10 * FINALITY_MS);
        // Not heard within five finality periods: counted as never (Infinity), and the window ends.
        const completed = await waitFor(`invoice ${inv.id}'s COMPLETED webhook`, async () => hooks.at.get(inv.id), 5 * FINALITY_MS).catch(() => Infinity);
        ratios.push((completed - included) / FINALITY_MS);
      }),
    ),
  );
  lines.push(`scan_cpu_ms_per_block{load=10x}=${tenX.cpuMsPerBlock.toFixed(1)}`);
  lines.push(`scan_lag_blocks{load=10x,stat=p99}=${quantile(tenX.lags, 0.99)}`);
  lines.push(`completed_over_finality{token=USDT,load=10x,stat=p50}=${quantile(ratios, 0.5).toFixed(3)}`);
  lines.push(`# 10x: ${tenX.blocks} blocks scanned; lag max ${Math.max(...tenX.lags)} blocks; ${PAYMENTS} USDT payments, completed over finality ${ratios.map((r) => r.toFixed(2)).join(' ')}`);

  if (ratios.every(Number.isFinite)) lines.push(...(await nodeRequestLines(stack, IDLE_MS, PER_TOKEN)));
  else lines.push('# node_requests_* not measured: the scanner was still behind the traffic (npm run bench:node-requests measures them alone)');
} finally {
  hooks.close();
  await stack.stop();
}
