import type { BatchCost } from '@/lib/chain/types';
import type { EnergySource, Transaction } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import type { Anchor as SendAnchor, SendOutcome } from '@/lib/sends/steps';
import type { WorkerContext } from '@/lib/worker/context';
import { noteWaiting } from './engine';
import { carryOut, planSend, wavePlanCost, type SendPlan } from './plan';
import { EnergyUnavailable, lendingNeed, poolStatus } from './pool';
import { rentalFor, rentalProvider, rentalQuote } from './rentals';

type Anchor = SendAnchor & Pick<Transaction, 'waitingReason'>;

const toTrx = (sun: bigint) => (Number(sun) / 10 ** TOKEN_DECIMALS).toString();

/**
 * The plan of one wave of a mass payout's USDT sends (docs/energy.md, "Payouts"; lib/energy/plan.ts),
 * its source chosen as for a forward: the pool lends the payout address the whole wave's energy in
 * one delegation (PAYOUT_ENERGY, index = the wave) and its bandwidth beyond the free allowance in
 * another (PAYOUT_BANDWIDTH), after activating it (the gas wallet's smallest transfer); without the
 * pool's headroom the wave rents the whole wave's energy in one order (energy_rentals, purpose
 * PAYOUT_TARGET, attempt = the wave) when the provider quotes within ENERGY_RENTAL_MAX_TRX per
 * send and below burning; else it burns (PAYOUT_GAS tops the address up to the wave's fee_limits),
 * only while no send of the wave would burn more than ENERGY_MAX_BURN_TRX; else it waits, visibly
 * (the payout's first top-up carries `waiting_reason`, counted with the sends waiting for energy).
 *
 * The run follows the quote (`quoted`, lib/payouts/estimate.ts): a payout quoted with the pool's
 * energy waits for the pool while there is one (it regenerates), rather than rent or burn what its
 * top-up did not pay for; with no pool any more it rents or burns and the service bears the
 * difference (alerted). The choice is kept for the wave (its first gas, lending or rental says).
 * The worker's energy job takes the pool's lending back once the payout is over; rented energy
 * returns to the provider at the period's end. Carried out here: the plan once every need is done,
 * which the wave's sends read (`feeLimitSun`, their energy source).
 */
export async function arrangeWave(
  ctx: WorkerContext,
  anchor: Anchor,
  wave: number,
  address: string,
  quoted: EnergySource | null,
  estimate: () => Promise<BatchCost>,
): Promise<{ state: 'ready'; plan: SendPlan } | SendOutcome> {
  const what = `payout ${anchor.invoiceId}, wave ${wave}`;
  const source = await waveSource(ctx, anchor, wave, address, quoted, estimate, what);
  if (typeof source !== 'string') {
    await noteWaiting(ctx, anchor, source.wait, what);
    return { state: 'pending' };
  }
  const plan = await planSend(ctx, anchor.id, source, {
    address,
    gas: { purpose: 'PAYOUT_GAS', index: wave, address },
    energy: { purpose: 'PAYOUT_ENERGY', index: wave },
    bandwidth: { purpose: 'PAYOUT_BANDWIDTH', index: wave },
    rental: { purpose: 'PAYOUT_TARGET', attempt: wave },
    // Issue 24: the wave's sends go out once the activation and the pool's lending are in a head block,
    // each referencing the newest of them (lib/sends/steps.ts, bindingBlock), instead of once they are final.
    landed: ctx.settings.FORWARD_BEFORE_FINALITY,
    burnTopUp: false,
    signedFeeLimitSun: null,
  });
  const notReady = await carryOut(ctx, anchor, plan, address, async () => wavePlanCost(await estimate()), 'PAYOUT', what);
  return notReady ?? { state: 'ready', plan };
}

/** The wave's energy source: the one it already uses, else chosen now; or why it waits. */
async function waveSource(ctx: WorkerContext, anchor: Anchor, wave: number, address: string, quoted: EnergySource | null, estimate: () => Promise<BatchCost>, what: string): Promise<EnergySource | { wait: string }> {
  const chosen = await ctx.prisma.transaction.findFirst({
    where: { sourceId: anchor.id, sendPurpose: { in: ['PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'] }, sendIndex: wave, energySource: { not: null } },
    orderBy: { id: 'asc' },
    select: { energySource: true },
  });
  const rental = await rentalFor(ctx, anchor.id, 'PAYOUT_TARGET', wave);
  const rentalOver = rental?.state === 'FAILED' || rental?.state === 'ABANDONED';
  const kept = chosen?.energySource ?? (rental && !rentalOver ? 'RENTAL' : null);
  // A rental that failed before any send of the wave was built: the wave chooses again, the provider aside.
  if (kept !== null && !(kept === 'RENTAL' && rentalOver)) return kept;
  // Lent or rented: the sends' estimates and a unit per send for the rounding of each send's share (lib/payouts/run.ts).
  const cost = wavePlanCost(await estimate());
  const why: string[] = [];
  let source: EnergySource | null = null;
  const status = await poolStatus(ctx);
  if (status.enabled) {
    try {
      await lendingNeed(ctx, address, cost.lendEnergy, 'ENERGY', true, status);
      source = 'POOL';
    } catch (err) {
      if (!(err instanceof EnergyUnavailable)) throw err;
      why.push(err.message);
    }
    // Quoted with the pool: its top-up paid for no burn and no rental.
    if (!source && quoted === 'POOL') return { wait: `waiting for energy: the payout was quoted with the pool's energy; ${why.join('; ')}` };
  } else why.push('the pool has no stake');
  if (!source && !rentalOver && rentalProvider(ctx.settings)) {
    const quote = await rentalQuote(ctx, cost, cost.sends);
    if ('why' in quote) why.push(quote.why);
    else source = 'RENTAL';
  }
  if (!source) {
    const capSun = parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
    // ENERGY_MAX_BURN_TRX caps each send.
    if (cost.maxSendBurnSun > capSun) return { wait: `waiting for energy: a send of the wave would burn ${toTrx(cost.maxSendBurnSun)} TRX, above ENERGY_MAX_BURN_TRX (${ctx.settings.ENERGY_MAX_BURN_TRX}); ${why.join('; ')}` };
    source = 'BURN';
  }
  if (quoted !== null && quoted !== source && (quoted === 'POOL' || source === 'BURN')) {
    console.error(`ALERT ${what}: quoted with ${quoted.toLowerCase()} energy, paid by ${source === 'BURN' ? 'burning' : source.toLowerCase()}: the service bears the difference (${why.join('; ')})`);
  }
  return source;
}
