import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { WorkerContext } from '@/lib/worker/context';
import { poolStatus } from './pool';

/** Energy of the costliest USDT send (to an address holding none, at mainnet's factor) with ENERGY_MARGIN_PERCENT: what one more forward may need. */
export const COLD_USDT_SEND_ENERGY = 143_314n;
/** How long a published status is believed: after that the web judges by the worst burn again. */
const FRESH_MS = 120_000;

/**
 * Publishes what the pool can pay for now (energy_status), for the web's smallest USDT invoice
 * (lib/invoices/service.ts): with the pool able to pay a cold forward, a USDT forward from a fresh
 * address costs its activation only (the system fee; the create-account fee too unless the pool's
 * staked bandwidth covers it).
 */
export async function publishEnergyStatus(ctx: WorkerContext): Promise<void> {
  const s = await poolStatus(ctx);
  let costSun: bigint | null = null;
  if (s.enabled && s.lendableEnergy >= COLD_USDT_SEND_ENERGY) {
    const params = await ctx.chain.getChainParameters();
    const bandwidthLeft = s.resources.stakedBandwidthLimit - s.resources.stakedBandwidthUsed;
    costSun = params.createAccountSystemFeeSun + (bandwidthLeft >= 300n * params.createAccountBandwidthRate ? 0n : params.createAccountFeeSun);
  }
  const need = await nextHourNeedEnergy(ctx);
  // Low while the pool is on and cannot lend what the next hour is expected to borrow; alerted once,
  // as it becomes low, and shown by `npm run energy -- status` and /metrics while it stays low.
  const low = s.enabled && s.lendableEnergy < need;
  const before = await ctx.prisma.energyStatus.findUnique({ where: { id: 1 }, select: { headroomLowSince: true } });
  const headroomLowSince = low ? (before?.headroomLowSince ?? new Date()) : null;
  if (low && !before?.headroomLowSince) {
    console.error(`ALERT energy pool: it can lend ${s.lendableEnergy} energy now, below the next hour's expected need of ${need} (the last hour's lending and the payments waiting for energy); stake more (npm run energy -- stake <TRX>) or sends will burn or wait`);
  }
  const data = { poolEnabled: s.enabled, lendableEnergy: s.lendableEnergy, lentEnergy: s.lentEnergy, usdtForwardCostSun: costSun, nextHourNeedEnergy: need, headroomLowSince, updatedAt: new Date() };
  await ctx.prisma.energyStatus.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
}

const HOUR_MS = 3_600_000;

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
    ctx.prisma.transaction.count({ where: { type: 'PAYMENT', waitingReason: { startsWith: 'waiting for energy' } } }),
  ]);
  return (lent._sum.energyUnits ?? 0n) + BigInt(waiting) * COLD_USDT_SEND_ENERGY;
}

/** The cost (sun) of a USDT forward with the pool, as last published, if recent and the pool can pay one; else null. */
export async function pooledUsdtForwardCostSun(prisma: Pick<PrismaClient, 'energyStatus'>): Promise<bigint | null> {
  const row = await prisma.energyStatus.findUnique({ where: { id: 1 } });
  if (!row || !row.poolEnabled || row.usdtForwardCostSun === null || Date.now() - row.updatedAt.getTime() > FRESH_MS) return null;
  return row.usdtForwardCostSun;
}

/** Energy the pool can lend now, as last published, if recent and the pool is enabled; else null (a payout quote then assumes burning). */
export async function pooledLendableEnergy(prisma: Pick<PrismaClient, 'energyStatus'>): Promise<bigint | null> {
  const row = await prisma.energyStatus.findUnique({ where: { id: 1 } });
  if (!row || !row.poolEnabled || Date.now() - row.updatedAt.getTime() > FRESH_MS) return null;
  return row.lendableEnergy;
}
