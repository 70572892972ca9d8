/**
 * What a deployment asks of its node provider (issue 37): requests to the Tron node, counted by the
 * chain layer (lib/chain/meter.ts) and read from /metrics (every live worker's and the web's), on a
 * devnet with mainnet timing, the real app and the real worker with the default run's settings
 * (bench/mainnetStack.ts).
 *   - idle, no invoice open: `node_requests_per_block{state=idle}` and, at 28,800 blocks a day,
 *     `node_requests_per_day{state=idle}`;
 *   - BENCH_INVOICES SINGLE invoices per token (default 3) paid at once, each followed to COMPLETED:
 *     what they cost beyond the idle rate over the same time, per invoice:
 *     `node_requests_per_invoice{token=TRX|USDT}`.
 * The same lines under mainnet traffic come with the scanner's figures from `npm run bench:ingest`.
 * Needs PostgreSQL at TEST_DATABASE_URL and a build.
 *   npm run bench:node-requests        (BENCH_IDLE_S, default 120; BENCH_INVOICES, default 3)
 */
import { BLOCK_MS, DEPTH, nodeRequestLines, startMainnetStack } from './mainnetStack';

const IDLE_MS = Number(process.env.BENCH_IDLE_S ?? 120) * 1000;
const PER_TOKEN = Number(process.env.BENCH_INVOICES ?? 3);

const stack = await startMainnetStack();
try {
  const lines = await nodeRequestLines(stack, IDLE_MS, PER_TOKEN);
  console.log(`# idle ${IDLE_MS / 1000} s; ${PER_TOKEN} SINGLE invoices per token paid at once; blocks every ${BLOCK_MS} ms, final ${DEPTH} deep; requests of the worker and the web, from /metrics`);
  for (const line of lines) console.log(line);
} finally {
  await stack.stop();
}
