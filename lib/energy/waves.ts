import type { BatchCost } from '@/lib/chain/types';
import type { EnergySource, Transaction } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { withMargin } from '@/lib/money/fees';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import { ensureGas } from '@/lib/sends/gas';
import type { Anchor as SendAnchor, SendOutcome } from '@/lib/sends/steps';
import type { WorkerContext } from '@/lib/worker/context';
import { noteWaiting } from './engine';
import { EnergyUnavailable, lend, lendingNeed, poolStatus } from './pool';
import { rentalFor, rentalProvider, rentalQuote, rentEnergy } from './rentals';

type Anchor = SendAnchor & Pick<Transaction, 'waitingReason'>;

const toTrx = (sun: bigint) => (Number(sun) / 10 ** TOKEN_DECIMALS).toString();

/** Energy lent or rented for a wave: the sends' estimates, and a unit per send for the rounding of each send's share (lib/payouts/run.ts). */
const waveEnergy = (cost: BatchCost) => cost.energy + BigInt(cost.transfers.length);

/** The most a send of the wave would burn (energy and bandwidth): ENERGY_MAX_BURN_TRX caps each send. */
const maxBurnSun = (cost: BatchCost) => cost.transfers.reduce((max, t) => (t.energyFeeSun + t.bandwidthFeeSun > max ? t.energyFeeSun + t.bandwidthFeeSun : max), 0n);

/**
 * Energy for one wave of a mass payout's USDT sends (docs/energy.md, "Payouts"), chosen as for a
 * forward: the pool lends the payout address the whole wave's energy in one delegation
 * (PAYOUT_ENERGY, index = the wave) and its bandwidth beyond the free allowance in another
 * (PAYOUT_BANDWIDTH), after activating it (the gas wallet's smallest transfer); without the pool's
 * headroom the wave rents the whole wave's energy in one order (energy_rentals, purpose
 * PAYOUT_TARGET, attempt = the wave) when the provider quotes within ENERGY_RENTAL_MAX_TRX per
 * send and below burning; else it burns (`burn`: the gas step that tops the address up), only
 * while no send of the wave would burn more than ENERGY_MAX_BURN_TRX; else it waits, visibly (the
 * payout's first top-up carries `waiting_reason`, counted with the sends waiting for energy).
 *
 * The run follows the quote (`quoted`, lib/payouts/estimate.ts): a payout quoted with the pool's
 * energy waits for the pool while there is one (it regenerates), rather than rent or burn what its
 * top-up did not pay for; with no pool any more it rents or burns and the service bears the
 * difference (alerted). The choice is kept for the wave (its first gas, lending or rental says).
 * The worker's energy job takes the pool's lending back once the payout is over; rented energy
 * returns to the provider at the period's end.
 */
export async function arrangeWave(
  ctx: WorkerContext,
  anchor: Anchor,
  wave: number,
  address: string,
  quoted: EnergySource | null,
  estimate: () => Promise<BatchCost>,
  burn: () => Promise<SendOutcome>,
): Promise<{ state: 'ready'; source: EnergySource } | SendOutcome> {
  const what = `payout ${anchor.invoiceId}, wave ${wave}`;
  const wait = async (reason: string): Promise<SendOutcome> => {
    await noteWaiting(ctx, anchor, reason, what);
    return { state: 'pending' };
  };
  const chosen = await ctx.prisma.transaction.findFirst({
    where: { sourceId: anchor.id, sendPurpose: { in: ['PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'] }, sendIndex: wave, energySource: { not: null } },
    orderBy: { id: 'asc' },
    select: { energySource: true },
  });
  const rental = await rentalFor(ctx, anchor.id, 'PAYOUT_TARGET', wave);
  const rentalOver = rental?.state === 'FAILED' || rental?.state === 'ABANDONED';
  let source: EnergySource | null = chosen?.energySource ?? (rental && !rentalOver ? 'RENTAL' : null);
  // A rental that failed before any send of the wave was built: the wave chooses again, the provider aside.
  if (source === 'RENTAL' && rentalOver) source = null;
  if (source === null) {
    const cost = await estimate();
    const why: string[] = [];
    const status = await poolStatus(ctx);
    if (status.enabled) {
      try {
        await lendingNeed(ctx, address, waveEnergy(cost));
        source = 'POOL';
      } catch (err) {
        if (!(err instanceof EnergyUnavailable)) throw err;
        why.push(err.message);
      }
      // Quoted with the pool: its top-up paid for no burn and no rental.
      if (!source && quoted === 'POOL') return wait(`waiting for energy: the payout was quoted with the pool's energy; ${why.join('; ')}`);
    } else why.push('the pool has no stake');
    if (!source && !rentalOver && rentalProvider(ctx.settings)) {
      const quote = await rentalQuote(ctx, cost, cost.transfers.length);
      if ('why' in quote) why.push(quote.why);
      else source = 'RENTAL';
    }
    if (!source) {
      const capSun = parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
      if (maxBurnSun(cost) > capSun) return wait(`waiting for energy: a send of the wave would burn ${toTrx(maxBurnSun(cost))} TRX, above ENERGY_MAX_BURN_TRX (${ctx.settings.ENERGY_MAX_BURN_TRX}); ${why.join('; ')}`);
      source = 'BURN';
    }
    if (quoted !== null && quoted !== source && (quoted === 'POOL' || source === 'BURN')) {
      console.error(`ALERT ${what}: quoted with ${quoted.toLowerCase()} energy, paid by ${source === 'BURN' ? 'burning' : source.toLowerCase()}: the service bears the difference (${why.join('; ')})`);
    }
  }
  if (source === 'BURN') {
    const gas = await burn();
    if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
    await noteWaiting(ctx, anchor, null, what);
    return { state: 'ready', source };
  }
  // Pool or rental: the gas wallet makes the address an account (1 sun; a rental provider delegates only to
  // one). Rented, the wave's bytes beyond the free allowance are then burned at the address: its gas covers them.
  const rentalGas = async () => ((await ctx.chain.isActivated(address)) ? withMargin((await estimate()).bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT) : 1n);
  const poolGas = async () => ((await ctx.chain.isActivated(address)) ? 0n : 1n);
  // Issue 24: with the pool, the wave's sends go out once the activation and the lending are in a head
  // block, each referencing the newest of them (lib/sends/steps.ts, bindingBlock), instead of once they
  // are final. Not with a rental: the provider's delegation is not ours to reference, so a fork without
  // it would leave the sends burning; they wait for it to be final as before.
  const landed = ctx.settings.FORWARD_BEFORE_FINALITY && source === 'POOL';
  const gasStep = () => ensureGas(ctx, anchor, { purpose: 'PAYOUT_GAS', index: wave, address }, address, source === 'RENTAL' ? rentalGas : poolGas, 'PAYOUT', { topUp: true, energySource: source, landed });
  // An activation that turns final in this call is followed by the planner's answer for the bytes the address then has to burn (ensureSend, topUp).
  const gas = await gasStep();
  if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
  if (source === 'RENTAL') {
    const cost = await estimate();
    const capSun = parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
    const rented = await rentEnergy(ctx, anchor, 'PAYOUT_TARGET', wave, address, waveEnergy(cost), async () => maxBurnSun(await estimate()) <= capSun, {
      sends: cost.transfers.length,
      built: async (row) => (await ctx.prisma.transaction.count({ where: { sourceId: anchor.id, sendPurpose: 'PAYOUT_TARGET', createdAt: { gte: row.createdAt } } })) > 0,
    });
    if (rented.state === 'waiting') return wait(rented.reason);
    // Fallen back: the next round chooses again (the pool, or burning within the cap), with the reason recorded.
    if (rented.state === 'fallback') return { state: 'pending' };
    await noteWaiting(ctx, anchor, null, what);
    return { state: 'ready', source };
  }
  try {
    const energy = await lend(ctx, anchor, { purpose: 'PAYOUT_ENERGY', index: wave }, address, 'ENERGY', async () => waveEnergy(await estimate()), 'PAYOUT', { landed });
    if (energy.state === 'pending' || energy.state === 'exhausted') return energy;
    const bytes = async () => ((await estimate()).bandwidthFeeSun > 0n ? (await estimate()).bandwidth : 0n);
    const bandwidth = await lend(ctx, anchor, { purpose: 'PAYOUT_BANDWIDTH', index: wave }, address, 'BANDWIDTH', bytes, 'PAYOUT', { landed }).catch(async (err: unknown) => {
      if (!(err instanceof EnergyUnavailable)) throw err;
      // The pool's bandwidth is used up for today: the address burns the wave's bytes instead, with gas counted
      // from the ledger (spendableTrx), which books it only when final: not landed.
      return ensureGas(ctx, anchor, { purpose: 'PAYOUT_GAS', index: wave, address }, address, async () => withMargin((await estimate()).bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT), 'PAYOUT', { topUp: true, energySource: 'POOL' });
    });
    if (bandwidth.state === 'pending' || bandwidth.state === 'exhausted') return bandwidth;
  } catch (err) {
    if (!(err instanceof EnergyUnavailable)) throw err;
    // Lent in part, then the pool ran short: the wave waits for it (its first lending keeps the choice).
    return wait(`waiting for energy: ${err.message}`);
  }
  await noteWaiting(ctx, anchor, null, what);
  return { state: 'ready', source: 'POOL' };
}
