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
  const data = { poolEnabled: s.enabled, lendableEnergy: s.lendableEnergy, lentEnergy: s.lentEnergy, usdtForwardCostSun: costSun, updatedAt: new Date() };
  await ctx.prisma.energyStatus.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
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
