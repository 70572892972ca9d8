import type { ChainParameters } from '@/lib/chain/types';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { WorkerContext } from '@/lib/worker/context';
import { ACTIVATION_BYTES } from './engine';
import { poolStatus, type PoolStatus } from './pool';
import { rentalProvider, rentalQuote } from './rentals';
import { singleton } from '@/lib/singletons';

/** Energy of the costliest USDT send (to an address holding none, at mainnet's factor) with ENERGY_MARGIN_PERCENT: what one more forward may need. */
export const COLD_USDT_SEND_ENERGY = 143_314n;
/** The same without the margin: what the send itself uses (a rental adds the margin when it orders). */
const COLD_USDT_SEND_NEED = 130_285n;
/** How long a published status is believed: after that the web judges by the worst burn again. */
const FRESH_MS = 120_000;

/**
 * Publishes what the pool can pay for now (energy_status), for the web's smallest USDT invoice
 * (lib/invoices/service.ts) and payout quotes (lib/payouts/estimate.ts): with the pool able to pay
 * a cold forward, a USDT forward from a fresh address costs its activation only (the system fee;
 * the create-account fee too unless the pool's staked bandwidth covers it); without, with rented
 * energy (the provider's quote for a cold send within ENERGY_RENTAL_MAX_TRX and below burning), its
 * activation and the rental's price. The rental quote is published either way (a payout's quote
 * scales it to its energy). `pool`: the pool as the energy job's round read it; `chainParameters`:
 * as the job last read them (lib/energy/upkeep.ts: at most an hour old; the status is a quote, and
 * every send reads the price fresh).
 */
export async function publishEnergyStatus(ctx: WorkerContext, pool?: PoolStatus, chainParameters?: ChainParameters): Promise<void> {
  const s = pool ?? (await poolStatus(ctx));
  const params = chainParameters ?? (await ctx.chain.getChainParameters());
  const bandwidthLeft = s.resources.stakedBandwidthLimit - s.resources.stakedBandwidthUsed;
  const activationSun = params.createAccountSystemFeeSun + (bandwidthLeft >= ACTIVATION_BYTES * params.createAccountBandwidthRate ? 0n : params.createAccountFeeSun);
  const rentalColdSendPriceSun = await coldSendRentalPrice(ctx, COLD_USDT_SEND_NEED * params.energyFeeSun);
  let costSun: bigint | null = null;
  let source: 'POOL' | 'RENTAL' | null = null;
  if (s.enabled && s.lendableEnergy >= COLD_USDT_SEND_ENERGY) [costSun, source] = [activationSun, 'POOL'];
  else if (rentalColdSendPriceSun !== null) [costSun, source] = [activationSun + rentalColdSendPriceSun, 'RENTAL'];
  const need = await nextHourNeedEnergy(ctx);
  // Low while the pool is on and cannot lend what the next hour is expected to borrow; alerted once,
  // as it becomes low, and shown by `npm run energy -- status` and /metrics while it stays low.
  const low = s.enabled && s.lendableEnergy < need;
  const before = await ctx.prisma.energyStatus.findUnique({ where: { id: 1 }, select: { headroomLowSince: true } });
  const headroomLowSince = low ? (before?.headroomLowSince ?? new Date()) : null;
  if (low && !before?.headroomLowSince) {
    console.error(`ALERT energy pool: it can lend ${s.lendableEnergy} energy now, below the next hour's expected need of ${need} (the last hour's lending and the sends waiting for energy); stake more (npm run energy -- stake <TRX>) or sends will rent, burn or wait`);
  }
  const data = { poolEnabled: s.enabled, lendableEnergy: s.lendableEnergy, lentEnergy: s.lentEnergy, usdtForwardCostSun: costSun, usdtForwardSource: source, rentalColdSendPriceSun, nextHourNeedEnergy: need, headroomLowSince, updatedAt: new Date() };
  await ctx.prisma.energyStatus.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
}

const HOUR_MS = 3_600_000;
/** A provider's quote is asked at most this often for the published status (the job runs every few seconds). */
const QUOTE_MS = 60_000;

/** The rental provider's price for a cold send's energy (null: no provider, unavailable, above the cap, not below burning), asked once a minute. */
async function coldSendRentalPrice(ctx: WorkerContext, burnSun: bigint): Promise<bigint | null> {
  if (!rentalProvider(ctx.settings)) return null;
  const quotes = singleton('energyQuotes', () => new WeakMap());
  const known = quotes.get(ctx.settings);
  if (known && Date.now() - known.at < QUOTE_MS) return known.priceSun;
  const quote = await rentalQuote(ctx, { energy: COLD_USDT_SEND_NEED, energyFeeSun: burnSun });
  const priceSun = 'why' in quote ? null : quote.priceSun;
  quotes.set(ctx.settings, { at: Date.now(), priceSun });
  return priceSun;
}

/**
 * The energy USDT sends are expected to borrow from the pool in the next hour: what it lent in the
 * last hour (the recent rate of payments), and a cold send's energy for each payment waiting for
 * energy now (they will borrow as soon as the pool can lend). The used energy regenerates over 24
 * hours, so an hour's need is met from what is lendable now, not from regeneration.
 */
export async function nextHourNeedEnergy(ctx: Pick<WorkerContext, 'prisma'>): Promise<bigint> {
  const since = new Date(Date.now() - HOUR_MS);
  const [lent, waiting] = await Promise.all([
    ctx.prisma.transaction.aggregate({
      where: { type: 'DELEGATE', resource: 'ENERGY', energySource: 'POOL', createdAt: { gte: since }, sendState: { not: 'FAILED' } },
      _sum: { energyUnits: true },
    }),
    ctx.prisma.transaction.count({ where: { type: { in: ['PAYMENT', 'TOPUP'] }, waitingReason: { startsWith: 'waiting for energy' } } }),
  ]);
  return (lent._sum.energyUnits ?? 0n) + BigInt(waiting) * COLD_USDT_SEND_ENERGY;
}

/**
 * The cost (sun) of a USDT forward from a fresh address with the cheapest source the worker last
 * published (the pool, else rented energy), if recent; else null (the web judges by the worst burn).
 */
export async function cheapestUsdtForwardCost(prisma: Pick<PrismaClient, 'energyStatus'>): Promise<{ costSun: bigint; source: 'POOL' | 'RENTAL' } | null> {
  const row = await prisma.energyStatus.findUnique({ where: { id: 1 } });
  if (!row || row.usdtForwardCostSun === null || row.usdtForwardSource === null || row.usdtForwardSource === 'BURN' || Date.now() - row.updatedAt.getTime() > FRESH_MS) return null;
  return { costSun: row.usdtForwardCostSun, source: row.usdtForwardSource };
}

/**
 * What a payout's quote may count on, as the worker last published it, if recent (else null: the
 * quote assumes burning): the energy the pool can lend now (null when it is off) less the next
 * hour's expected need of other sends (the pool keeps that headroom for them), and the rental
 * provider's price for a cold send's energy (null when renting is not to be had).
 */
export async function payoutEnergyStatus(prisma: Pick<PrismaClient, 'energyStatus'>): Promise<{ poolEnergy: bigint | null; rentalColdSendPriceSun: bigint | null } | null> {
  const row = await prisma.energyStatus.findUnique({ where: { id: 1 } });
  if (!row || Date.now() - row.updatedAt.getTime() > FRESH_MS) return null;
  const spare = row.lendableEnergy - row.nextHourNeedEnergy;
  return { poolEnergy: row.poolEnabled ? (spare > 0n ? spare : 0n) : null, rentalColdSendPriceSun: row.rentalColdSendPriceSun };
}

/** The rental price for a cold send's energy scaled to `energy` (the provider's price is per unit of energy). */
export const rentalPriceFor = (coldSendPriceSun: bigint, energy: bigint): bigint => (coldSendPriceSun * energy + COLD_USDT_SEND_ENERGY - 1n) / COLD_USDT_SEND_ENERGY;
