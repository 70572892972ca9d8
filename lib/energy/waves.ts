import type { BatchCost } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { withMargin } from '@/lib/money/fees';
import { ensureGas } from '@/lib/payments/gas';
import type { SendOutcome } from '@/lib/payments/sends';
import type { WorkerContext } from '@/lib/worker/context';
import { EnergyUnavailable, lend, lendingNeed, poolStatus } from './pool';

type Anchor = Pick<Transaction, 'id' | 'merchantId' | 'invoiceId' | 'eventId' | 'operatorRetries' | 'solidified' | 'blockNumber' | 'blockId'>;

/**
 * Energy for one wave of a mass payout's USDT sends (docs/energy.md, "Payouts"): the pool lends the
 * payout address the whole wave's energy in one delegation (PAYOUT_ENERGY, index = the wave) and
 * its bandwidth beyond the free allowance in another (PAYOUT_BANDWIDTH), after activating it (the
 * gas wallet's smallest transfer); the worker's energy job takes both back once the payout is over.
 * Without the pool's headroom the wave burns as before (`burn`: the gas step that tops the address up).
 * The choice is kept for the wave. `ready` carries whether the pool pays (the sends' fee_limit and
 * their check before broadcast follow it).
 */
export async function arrangeWave(
  ctx: WorkerContext,
  anchor: Anchor,
  wave: number,
  address: string,
  estimate: () => Promise<BatchCost>,
  burn: () => Promise<SendOutcome>,
): Promise<{ state: 'ready'; pool: boolean } | SendOutcome> {
  const chosen = await ctx.prisma.transaction.findFirst({
    where: { sourceId: anchor.id, sendPurpose: { in: ['PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'] }, sendIndex: wave, energySource: { not: null } },
    orderBy: { id: 'asc' },
    select: { energySource: true },
  });
  let pool = chosen?.energySource === 'POOL';
  if (!chosen && (await poolStatus(ctx)).enabled) {
    pool = await lendingNeed(ctx, address, (await estimate()).energy).then(
      () => true,
      (err: unknown) => {
        if (err instanceof EnergyUnavailable) return false;
        throw err;
      },
    );
  }
  if (!pool) {
    const gas = await burn();
    return gas.state === 'pending' || gas.state === 'exhausted' ? gas : { state: 'ready', pool: false };
  }
  const activated = await ctx.chain.isActivated(address);
  const gas = await ensureGas(ctx, anchor, { purpose: 'PAYOUT_GAS', index: wave, address }, address, async () => (activated ? 0n : 1n), 'PAYOUT', { topUp: true, energySource: 'POOL' });
  if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
  try {
    const energy = await lend(ctx, anchor, { purpose: 'PAYOUT_ENERGY', index: wave }, address, 'ENERGY', async () => (await estimate()).energy, 'PAYOUT');
    if (energy.state === 'pending' || energy.state === 'exhausted') return energy;
    const bytes = async () => ((await estimate()).bandwidthFeeSun > 0n ? (await estimate()).bandwidth : 0n);
    const bandwidth = await lend(ctx, anchor, { purpose: 'PAYOUT_BANDWIDTH', index: wave }, address, 'BANDWIDTH', bytes, 'PAYOUT').catch(async (err: unknown) => {
      if (!(err instanceof EnergyUnavailable)) throw err;
      // The pool's bandwidth is used up for today: the address burns the wave's bytes instead.
      return ensureGas(ctx, anchor, { purpose: 'PAYOUT_GAS', index: wave, address }, address, async () => withMargin((await estimate()).bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT), 'PAYOUT', { topUp: true, energySource: 'POOL' });
    });
    if (bandwidth.state === 'pending' || bandwidth.state === 'exhausted') return bandwidth;
  } catch (err) {
    if (!(err instanceof EnergyUnavailable)) throw err;
    // Lent in part, then the pool ran short: the wave waits for it (its first lending keeps the choice).
    console.error(`ALERT payout anchor ${anchor.id}, wave ${wave}: waiting for energy: ${err.message}`);
    return { state: 'pending' };
  }
  return { state: 'ready', pool: true };
}
