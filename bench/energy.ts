/**
 * What USDT forwards and payout targets burn (issue 23, docs/energy.md), on the devnet with mainnet
 * fee parameters, through the real worker: BENCH_PAYMENTS (50) USDT payments (SINGLE invoices and
 * static addresses paid twice, merchants' wallets with and without USDT) and one 20-target USDT
 * payout, first with the energy pool (the gas wallet stakes as the default run does), then with
 * ENERGY_POOL=off for comparison (those lines carry `pool=off`), then with the pool off and energy
 * rented from the devnet's emulated provider (devnet/rental.ts; lines carry `pool=off,rental=on`).
 * Read from the ledger's sends (fee_sun from each receipt). Needs PostgreSQL at TEST_DATABASE_URL.
 * BENCH_SCENARIOS (default `pool,off,rental`) picks the runs.
 *   npm run bench:energy
 */
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { deriveAccount } from '@/lib/chain/keys';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { createInvoice } from '@/lib/invoices/service';
import { createMerchant } from '@/lib/merchants/service';
import { tokenAmountText } from '@/lib/money/tokens';
import { createPayout } from '@/lib/payouts/create';
import { systemActor } from '@/lib/audit/record';
import { quotePayout } from '@/lib/payouts/estimate';
import { payoutEnergyStatus } from '@/lib/energy/status';
import { FixedRateSource } from '@/lib/rates/fixed';
import { DEVNET_RENTAL_API_KEY, DEVNET_RENTAL_API_SECRET } from '../devnet/rentalAccount';
import { TEST_MNEMONIC } from '../test/helpers/app';
import { waitFor } from '../test/helpers/devnet';
import { startWorker } from '../test/helpers/worker';
import { startBenchStack } from './stack';

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 50);
const TARGETS = Number(process.env.BENCH_TARGETS ?? 20);
const rates = new FixedRateSource({ TRX: '0.25', USDT: '1' });
const newAddress = () => TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string;
const mean = (xs: bigint[]) => (xs.length ? Number(xs.reduce((a, b) => a + b, 0n)) / xs.length / 1e6 : NaN);
const fixed = (n: number, digits = 4) => (Number.isNaN(n) ? 'NaN' : n.toFixed(digits));

/** TRX burned for a payment's or payout's sends: every send anchored on it, from its receipt. */
async function burnedBy(prisma: PrismaClient, anchorId: number): Promise<bigint> {
  const r = await prisma.transaction.aggregate({ where: { sourceId: anchorId, sendState: { in: ['CONFIRMED', 'FAILED'] } }, _sum: { feeSun: true } });
  return r._sum.feeSun ?? 0n;
}

/** The smallest SINGLE USDT invoice (USD, to the cent) invoice creation accepts now. */
async function minUsdtInvoiceUsd(prisma: PrismaClient, merchant: Awaited<ReturnType<typeof createMerchant>>): Promise<number> {
  let lo = 1n;
  let hi = 100_000n; // cents
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    const ok = await createInvoice(prisma, rates, merchant, { type: 'SINGLE', amountMicros: mid * 10_000n, currencies: ['USDT'], clientCommission: false } as never).then(
      () => true,
      () => false,
    );
    if (ok) hi = mid;
    else lo = mid + 1n;
  }
  return Number(lo) / 100;
}

async function run(pool: boolean, rental = false): Promise<string[]> {
  const { env, prisma, devnet, chain, pay, stop } = await startBenchStack(Number(process.env.BENCH_BLOCK_MS ?? 200), 3);
  const off = rental ? 'pool=off,rental=on' : 'pool=off';
  const label = (labels: string) => (pool ? `{${labels}}` : `{${labels}${labels ? ',' : ''}${off}}`);
  try {
    const gas = deriveAccount(TEST_MNEMONIC, 0, 'gas').address;
    await pay(gas, '2000000', 'TRX');
    await waitFor('gas wallet funded', async () => (await chain.getTrxBalance(gas)) > 0n, 30_000);
    const rentalEnv: Record<string, string> = rental ? { ENERGY_RENTAL_URL: devnet.url, ENERGY_RENTAL_API_KEY: DEVNET_RENTAL_API_KEY, ENERGY_RENTAL_API_SECRET: DEVNET_RENTAL_API_SECRET } : {};
    const worker = startWorker(env, devnet, pool ? { ENERGY_POOL_AUTOSTAKE: '1500000:100000', WORKER_POLL_MS: '100' } : { ENERGY_POOL: 'off', WORKER_POLL_MS: '100', ...rentalEnv });
    try {
      if (pool) {
        await waitFor('the pool staked', async () => (await prisma.transaction.count({ where: { sendPurpose: 'POOL_STAKE', sendState: 'CONFIRMED' } })) === 2 || null, 120_000);
        await waitFor('the pool status published', async () => prisma.energyStatus.findFirst({ where: { usdtForwardCostSun: { not: null } } }), 60_000);
      } else await waitFor('the pool status published', async () => prisma.energyStatus.findFirst(), 60_000);

      // Merchants whose wallets hold USDT (a warm forward, ~64k energy) and whose do not (~130k).
      const merchants = [];
      for (let m = 0; m < 10; m++) {
        const target = newAddress();
        if (m % 2 === 0) await pay(target, '1', 'USDT');
        merchants.push(await createMerchant(prisma, { email: `bench-${m}@example.com`, targetWalletAddress: target }));
      }
      const singles = Math.ceil((PAYMENTS * 3) / 5);
      const statics = Math.ceil((PAYMENTS - singles) / 2);
      const payments: { address: string; units: bigint; fresh: boolean }[] = [];
      for (let i = 0; i < singles; i++) {
        const inv = await createInvoice(prisma, rates, merchants[i % merchants.length]!, { type: 'SINGLE', amountMicros: 10_000_000n, currencies: ['USDT'], clientCommission: false } as never);
        payments.push({ address: inv.address, units: inv.amounts[0]!.dueUnits, fresh: true });
      }
      const staticAddresses: string[] = [];
      for (let i = 0; i < statics; i++) {
        const inv = await createInvoice(prisma, rates, merchants[i % merchants.length]!, { type: 'MULTIPLE', amountMicros: 0n, currencies: ['USDT'], clientCommission: false } as never);
        staticAddresses.push(inv.address);
        payments.push({ address: inv.address, units: 3_000_000n + BigInt(i), fresh: true });
      }
      for (const p of payments) await pay(p.address, tokenAmountText(p.units), 'USDT');
      const settled = async () => prisma.transaction.count({ where: { type: 'PAYMENT', currency: 'USDT', paymentState: { in: ['SETTLED', 'HELD', 'FAILED', 'REFUNDED'] } } });
      await waitFor('first payments closed', async () => ((await settled()) >= payments.length ? true : null), 900_000);
      // Second payments to the static addresses: from an address that is already an account.
      for (const [i, address] of staticAddresses.entries()) await pay(address, tokenAmountText(3_500_000n + BigInt(i)), 'USDT');
      await waitFor('second payments closed', async () => ((await settled()) >= payments.length + staticAddresses.length ? true : null), 900_000);

      const rows = await prisma.transaction.findMany({ where: { type: 'PAYMENT', currency: 'USDT' }, orderBy: { id: 'asc' } });
      const seen = new Set<string>();
      const fresh: bigint[] = [];
      const activated: bigint[] = [];
      let held = 0;
      for (const r of rows) {
        if (r.paymentState !== 'SETTLED') held++;
        const burned = await burnedBy(prisma, r.id);
        (seen.has(r.toAddress) ? activated : fresh).push(burned);
        seen.add(r.toAddress);
      }

      // One USDT payout to TARGETS fresh addresses, quoted as the API quotes it: with what the worker publishes the pool and a rental can pay.
      const energy = await waitFor('the energy status published', () => payoutEnergyStatus(prisma), 60_000);
      const quote = await quotePayout({ chain, rates, estimateFrom: gas, feePercent: '1', marginPercent: '20', energyMarginPercent: '10', energy }, { currency: 'USDT', target_wallets: Array.from({ length: TARGETS }, (_, i) => ({ address: newAddress(), units: 1_000_000n + BigInt(i) })) });
      const payout = await createPayout(prisma, merchants[0]!, quote, systemActor('bench'));
      await pay(payout.address, tokenAmountText(quote.topupUnits), 'USDT');
      await waitFor('payout done', async () => ((await prisma.invoice.findUniqueOrThrow({ where: { id: payout.id } })).status !== 'ACTIVE' ? true : null), 900_000);
      const topup = await prisma.transaction.findFirstOrThrow({ where: { invoiceId: payout.id, type: 'TOPUP' }, orderBy: { id: 'asc' } });
      // The temporary address's activation is a cost of the payout, not of its targets: reported on its own line.
      const activation = (await prisma.transaction.findFirst({ where: { sourceId: topup.id, sendPurpose: 'PAYOUT_GAS', sendState: 'CONFIRMED' }, orderBy: { id: 'asc' } }))?.feeSun ?? 0n;
      const perTarget = Number((await burnedBy(prisma, topup.id)) - activation) / TARGETS / 1e6;

      const usdtSends = await prisma.transaction.findMany({ where: { currency: 'USDT', sendPurpose: { in: ['FORWARD', 'REFUND', 'PAYOUT_TARGET'] }, sendState: 'CONFIRMED' }, select: { energySource: true, trnHash: true } });
      const share = (source: string) => usdtSends.filter((s) => (s.energySource ?? 'BURN') === source).length / Math.max(1, usdtSends.length);
      // Energy burned (paid in TRX, not by the pool or a rental), from each send's receipt: the goal's "0 energy burned".
      const price = (await chain.getChainParameters()).energyFeeSun;
      let energyBurned = 0n;
      for (const send of usdtSends) energyBurned += (await chain.getTransactionStatus(send.trnHash)).energyFeeSun / price;
      const min = await minUsdtInvoiceUsd(prisma, merchants[1]!);
      return [
        `# ${pool ? 'with the pool' : rental ? 'pool off, rental on' : 'pool off'}: ${rows.length} USDT payments (${fresh.length} from fresh addresses, ${activated.length} from activated ones, ${held} not settled), ${TARGETS}-target USDT payout ${(await prisma.invoice.findUniqueOrThrow({ where: { id: payout.id } })).status}`,
        `trx_burned_per_usdt_forward${label('address=fresh')}=${fixed(mean(fresh))}`,
        `trx_burned_per_usdt_forward${label('address=activated')}=${fixed(mean(activated))}`,
        `trx_burned_per_payout_target${pool ? '' : `{${off}}`}=${fixed(perTarget)}`,
        `trx_burned_per_payout_activation${pool ? '' : `{${off}}`}=${fixed(Number(activation) / 1e6)}`,
        `payout_quote_energy_source${pool ? '' : `{${off}}`}=${quote.energySource}`,
        `energy_burned_per_usdt_send${pool ? '' : `{${off}}`}=${fixed(Number(energyBurned) / Math.max(1, usdtSends.length), 1)}`,
        ...['pool', 'rental', 'burn'].map((s) => `energy_source_share${label(`source=${s}`)}=${fixed(share(s.toUpperCase()), 3)}`),
        `min_usdt_invoice_usd${pool ? '' : `{${off}}`}=${min.toFixed(2)}`,
        // What renting cost, beside what the network burned (the rental price is paid to the provider, not burned).
        ...(rental ? [`trx_rental_paid_per_usdt_forward{${off}}=${fixed(mean((await prisma.energyRental.findMany({ where: { priceSun: { not: null } } })).map((r) => r.priceSun!)))}`] : []),
      ];
    } finally {
      await worker.stop();
    }
  } finally {
    await stop();
  }
}

const scenarios = (process.env.BENCH_SCENARIOS ?? 'pool,off,rental').split(',');
const lines = [...(scenarios.includes('pool') ? await run(true) : []), ...(scenarios.includes('off') ? await run(false) : []), ...(scenarios.includes('rental') ? await run(false, true) : [])];
for (const line of lines) console.log(line);
process.exit(0);
