/**
 * Latency of the worker with many open invoices: from a payment's block to the
 * invoice's status change and to the webhook's arrival, with 100k open invoices
 * (BENCH_OPEN_INVOICES) in the database. Needs PostgreSQL at TEST_DATABASE_URL.
 *   npm run bench:worker
 */
import { createServer } from 'node:http';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import { createInvoice } from '@/lib/invoices/service';
import { createMerchant } from '@/lib/merchants/service';
import { FixedRateSource } from '@/lib/rates/fixed';
import { freePort, TEST_MNEMONIC } from '../test/helpers/app';
import { waitFor } from '../test/helpers/devnet';
import { startWorker } from '../test/helpers/worker';
import { startBenchStack } from './stack';

const OPEN = Number(process.env.BENCH_OPEN_INVOICES ?? 100_000);
const PAID = Number(process.env.BENCH_PAYMENTS ?? 20);
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 1000);
const DEPTH = Number(process.env.BENCH_SOLIDIFIED_DEPTH ?? 3);

const { env, prisma, devnet, chain, pay, stop } = await startBenchStack(BLOCK_MS, DEPTH);
const tronWeb = new TronWeb({ fullHost: devnet.url });
const hookArrivals = new Map<number, number>();
const hookPort = await freePort();
const hooks = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    hookArrivals.set((JSON.parse(body) as { id: number }).id, Date.now());
    res.end('ok');
  });
}).listen(hookPort, '127.0.0.1');

try {
  const merchant = await createMerchant(prisma, { email: 'bench@example.com', targetWalletAddress: (TronWeb.createRandom() as unknown as { address: string }).address });
  await prisma.merchant.update({ where: { id: merchant.id }, data: { webhookUrl: `http://127.0.0.1:${hookPort}/hook` } });
  let t = Date.now();
  for (let i = 0; i < OPEN; i += 5000) {
    const n = Math.min(5000, OPEN - i);
    await prisma.invoice.createMany({
      data: Array.from({ length: n }, (_, k) => ({
        merchantId: merchant.id, type: 'SINGLE' as const, amountUsd: '10', currencies: ['TRX' as const], address: `Tbench${i + k}`,
        addressIndex: 1_000_000 + i + k, privateKeyEnc: 'unused', expiredAt: new Date(Date.now() + 86_400_000),
      })),
    });
  }
  console.log(`open invoices:            ${OPEN} inserted in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  await pay(deriveAccount(TEST_MNEMONIC, 0, 'gas').address, '10000');
  const worker = startWorker(env, devnet, { WORKER_POLL_MS: '100' });
  const rates = new FixedRateSource({ TRX: '0.25', USDT: '1' });
  const invoices: Awaited<ReturnType<typeof createInvoice>>[] = [];
  for (let i = 0; i < PAID; i++) invoices.push(await createInvoice(prisma, rates, merchant, { type: 'SINGLE', amountMicros: 10_000_000n, currencies: ['TRX'], expiryMinutes: 60, clientCommission: false, orderId: null, webhookUrl: null, redirectUrl: null, description: null }));

  const txids: string[] = [];
  for (const inv of invoices) txids.push(((await (await pay(inv.address, '40')).json()) as { txid: string }).txid);
  const statusAt = new Map<number, number>();
  t = Date.now();
  await waitFor('all invoices completed', async () => {
    const done = await prisma.invoice.findMany({ where: { id: { in: invoices.map((i) => i.id) }, status: 'COMPLETED' }, select: { id: true } });
    for (const d of done) if (!statusAt.has(d.id)) statusAt.set(d.id, Date.now());
    return done.length === invoices.length;
  }, 600_000);
  await waitFor('all webhooks', async () => invoices.every((i) => hookArrivals.has(i.id)), 60_000);

  const toStatus: number[] = [];
  const toHook: number[] = [];
  for (const [i, inv] of invoices.entries()) {
    const { blockNumber } = await chain.getTransactionStatus(txids[i] as string);
    const block = await tronWeb.trx.getBlockByNumber(blockNumber as number);
    const included = Number(block.block_header.raw_data.timestamp);
    toStatus.push((statusAt.get(inv.id) as number) - included);
    toHook.push((hookArrivals.get(inv.id) as number) - included);
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] as number;
    return `p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${s[s.length - 1]} ms`;
  };
  const solidifyMs = DEPTH * BLOCK_MS;
  console.log(`payments:                 ${PAID} TRX payments, blocks every ${BLOCK_MS} ms, solidified ${DEPTH} deep (~${solidifyMs} ms), forwarding waits for its own send to solidify too`);
  console.log(`block -> status change:   ${stats(toStatus)}`);
  console.log(`block -> webhook arrival: ${stats(toHook)}`);
  console.log(`of which chain waits:     ~${2 * solidifyMs} ms (payment solidified + forward solidified)`);
  await worker.stop();
} finally {
  hooks.close();
  await stop();
}
