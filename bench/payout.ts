/**
 * Throughput of a mass payout: one MULTIPLE_TRANSFER invoice with 1,000
 * targets (BENCH_TARGETS) on the devnet, from the top-up to COMPLETED, through
 * the real worker process. Prints the estimate's time and targets paid per
 * second. Needs PostgreSQL at TEST_DATABASE_URL.
 *   npm run bench:payout            (BENCH_CURRENCY=USDT for a USDT payout)
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import { createMerchant } from '@/lib/merchants/service';
import { tokenAmountText } from '@/lib/money/tokens';
import { createPayout } from '@/lib/payouts/create';
import { systemActor } from '@/lib/audit/record';
import { quotePayout } from '@/lib/payouts/estimate';
import { FixedRateSource } from '@/lib/rates/fixed';
import { TEST_MNEMONIC } from '../test/helpers/app';
import { waitFor } from '../test/helpers/devnet';
import { startWorker } from '../test/helpers/worker';
import { startBenchStack } from './stack';

const TARGETS = Number(process.env.BENCH_TARGETS ?? 1000);
const CURRENCY = (process.env.BENCH_CURRENCY ?? 'TRX') as 'TRX' | 'USDT';
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 1000);
const DEPTH = Number(process.env.BENCH_SOLIDIFIED_DEPTH ?? 3);

const { env, prisma, devnet, chain, pay, stop } = await startBenchStack(BLOCK_MS, DEPTH);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

try {
  const merchant = await createMerchant(prisma, { email: 'bench@example.com', targetWalletAddress: null });
  const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;
  await pay(gas, '100000', 'TRX');
  await pay(gas, '0.000001', 'USDT');
  await waitFor('gas wallet funded', async () => (await chain.getUsdtBalance(gas)) > 0n, 30_000);
  const targets = Array.from({ length: TARGETS }, (_, i) => ({ address: TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string, units: 1_000_000n + BigInt(i) }));

  let t = Date.now();
  const quote = await quotePayout({ chain, rates: new FixedRateSource({ TRX: '0.25', USDT: '1' }), estimateFrom: gas, feePercent: '1', marginPercent: '20' }, { currency: CURRENCY, target_wallets: targets });
  const estimateMs = Date.now() - t;
  const payout = await createPayout(prisma, merchant, quote, systemActor('bench'));
  console.log(`payout:                   ${TARGETS} ${CURRENCY} targets, none activated; blocks every ${BLOCK_MS} ms, solidified ${DEPTH} deep`);
  console.log(`estimate:                 ${seconds(estimateMs)} (${Math.round(TARGETS / (estimateMs / 1000))} targets/s); top-up ${tokenAmountText(quote.topupUnits)} ${CURRENCY}, network fee ${tokenAmountText(quote.networkFeeSun)} TRX`);

  const worker = startWorker(env, devnet, { WORKER_POLL_MS: '100' });
  await pay(payout.address, tokenAmountText(quote.topupUnits), CURRENCY);
  t = Date.now();
  await waitFor('payout completed', async () => (await prisma.invoice.findUniqueOrThrow({ where: { id: payout.id } })).status !== 'ACTIVE', 900_000);
  const wallMs = Date.now() - t;
  const final = await prisma.invoice.findUniqueOrThrow({ where: { id: payout.id } });
  const sends = await prisma.transaction.findMany({ where: { invoiceId: payout.id, type: 'TRANSFER' }, select: { createdAt: true, updatedAt: true, sendState: true } });
  const first = Math.min(...sends.map((s) => s.createdAt.getTime()));
  const lastSigned = Math.max(...sends.map((s) => s.createdAt.getTime()));
  const lastConfirmed = Math.max(...sends.map((s) => s.updatedAt.getTime()));
  const confirmed = sends.filter((s) => s.sendState === 'CONFIRMED').length;
  console.log(`status:                   ${final.status}; ${confirmed}/${TARGETS} sends confirmed, ${sends.length} built`);
  const topup = await prisma.transaction.findFirstOrThrow({ where: { invoiceId: payout.id, type: 'TOPUP' } });
  const gasSend = await prisma.transaction.findFirst({ where: { invoiceId: payout.id, type: 'ACTIVATION' } });
  console.log(`top-up -> completed:      ${seconds(wallMs)}; top-up recorded after ${seconds(topup.createdAt.getTime() - t)} (solidification)`);
  if (gasSend) console.log(`gas send:                 signed ${seconds(gasSend.createdAt.getTime() - t)}, confirmed ${seconds(gasSend.updatedAt.getTime() - t)} after the top-up`);
  console.log(`first send -> all signed: ${seconds(lastSigned - first)} (${Math.round(TARGETS / ((lastSigned - first) / 1000))} targets/s stored and broadcast)`);
  console.log(`first send -> all final:  ${seconds(lastConfirmed - first)} => ${(confirmed / ((lastConfirmed - first) / 1000)).toFixed(1)} targets paid per second`);
  await worker.stop();
} finally {
  await stop();
}
