import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import { formatScaled } from '@/lib/money/decimal';
import type { WorkerContext } from '@/lib/worker/context';
import { poolStatus } from './pool';

const trx = (sun: bigint) => `${formatScaled(sun, TOKEN_DECIMALS)} TRX`;

/** `npm run energy -- status` (docs/energy.md): the pool's stake, what it lends, and what waits for energy. */
export async function poolReport(ctx: WorkerContext): Promise<string[]> {
  const s = await poolStatus(ctx);
  const r = s.resources;
  const perTrxPerDay = r.totalEnergyWeight > 0n ? Number(r.totalEnergyLimit) / Number(r.totalEnergyWeight) : 0;
  const published = await ctx.prisma.energyStatus.findUnique({ where: { id: 1 } });
  const waiting = await ctx.prisma.transaction.findMany({ where: { type: { in: ['PAYMENT', 'TOPUP'] }, waitingReason: { not: null } }, select: { id: true, type: true, invoiceId: true, waitingReason: true }, take: 20 });
  return [
    `pool ${s.address}: ${s.enabled ? 'lends energy to USDT sends' : ctx.settings.ENERGY_POOL === 'off' ? 'off (ENERGY_POOL=off): every send burns' : 'no energy staked: every send burns'}`,
    `staked for energy ${trx(s.stake.frozenSun.ENERGY + s.stake.delegatedSun.ENERGY)} (lent out ${trx(s.stake.delegatedSun.ENERGY)}), for bandwidth ${trx(s.stake.frozenSun.BANDWIDTH + s.stake.delegatedSun.BANDWIDTH)}, unstaking ${trx(s.stake.unfreezingSun)} (${trx(s.stake.withdrawableSun)} of it withdrawable now)`,
    `energy: ${r.energyLimit - r.energyUsed} of ${r.energyLimit} a day available to lend now (${s.lendableEnergy} lendable), ${s.lentEnergy} lent; ${perTrxPerDay.toFixed(2)} energy per staked TRX a day`,
    published
      ? `next hour: about ${published.nextHourNeedEnergy} energy expected to be borrowed (the last hour's lending and the payments waiting)${published.headroomLowSince ? `; HEADROOM LOW since ${published.headroomLowSince.toISOString()}: stake more or sends will burn or wait` : '; the pool can lend it'}`
      : 'next hour: no status published yet (the worker publishes it every few seconds)',
    `bandwidth: ${r.stakedBandwidthLimit - r.stakedBandwidthUsed} of ${r.stakedBandwidthLimit} staked bytes left today, ${r.freeBandwidthLimit - r.freeBandwidthUsed} free`,
    published?.usdtForwardSource === 'RENTAL' && published.rentalColdSendPriceSun !== null
      ? `rented energy: ${trx(published.rentalColdSendPriceSun)} for a cold USDT send's energy (the smallest USDT invoice counts on it while the pool cannot pay)`
      : `rented energy: ${published?.rentalColdSendPriceSun != null ? `${trx(published.rentalColdSendPriceSun)} for a cold USDT send's energy` : 'not to be had now (no provider, unavailable, or above its cap)'}`,
    `waiting for energy: ${waiting.length} send(s)${waiting.map((w) => `\n  ${w.type === 'TOPUP' ? `payout ${w.invoiceId} (top-up ${w.id})` : `payment ${w.id}`}: ${w.waitingReason}`).join('')}`,
  ];
}
