import type { BatchCost, TransferCost } from '@/lib/chain/types';
import type { CostPayer, EnergySource, Transaction } from '@/lib/generated/prisma/client';
import { divCeil, parseScaled } from '@/lib/money/decimal';
import { withMargin } from '@/lib/money/fees';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import { ensureGas } from '@/lib/sends/gas';
import type { Anchor, SendOutcome, SendStep } from '@/lib/sends/steps';
import type { WorkerContext } from '@/lib/worker/context';
import { noteWaiting, type SendReads } from './engine';
import { EnergyUnavailable, energyAvailable, lend } from './pool';
import { type RentalPurpose, rentalFor, rentEnergy } from './rentals';

/**
 * A USDT send's plan (docs/energy.md, "A send's plan"): where its energy comes from, everything it
 * needs at its address before it may be built, in order, and how its fee_limit is set. Decided once
 * a round, as data, from the source chosen for the attempt (lib/energy/engine.ts for one send,
 * lib/energy/waves.ts for a payout's wave), then carried out by `carryOut` and read by the send's
 * builder (`feeLimitSun`, `paidWithLent`). Forwards, refunds, payout returns and payout waves
 * share it: what differs between them is in their `SendShape`, not in code.
 */
export interface SendPlan {
  source: EnergySource;
  /** Each must be done (final, or in a head block where `landed`) before the next is asked, and all before the send is built. */
  needs: Need[];
  feeLimit: FeeLimitRule;
}

/**
 * What the gas wallet tops the address up to, in sun:
 * - ACTIVATION: 1 sun while the address is no account (the pool delegates, and a provider rents, only to one), then none;
 * - BYTES: as ACTIVATION, then the bytes the send burns beyond the free allowance, with GAS_MARGIN_PERCENT;
 * - FEE_LIMIT: the fee_limit the send will be built with (`feeLimitSun`), all of it burnable;
 * - a stored send's own fee_limit, whatever the price now (it is never rebuilt until proven dead).
 */
export type GasNeed = 'ACTIVATION' | 'BYTES' | 'FEE_LIMIT' | { signedFeeLimitSun: bigint };

/**
 * How a send's fee_limit is set (a call may use at most fee_limit / price energy, its own included:
 * java-tron's rule, modelled by the devnet):
 * - LENT: the energy lent or rented for it (its estimate with ENERGY_MARGIN_PERCENT) at the price, all
 *   of it the address's own energy, so it burns no TRX for energy (checked again before broadcast, energyShort);
 * - BURN: what it burns (energy and bandwidth) with GAS_MARGIN_PERCENT;
 * - WHOLE_BURN: burning at an address that holds some energy already (a partly filled rental, a
 *   lending still there): the estimate's burn is only the rest, so it carries the whole energy's burn.
 */
export type FeeLimitRule = 'LENT' | 'BURN' | 'WHOLE_BURN';

export type Need =
  | { kind: 'GAS'; step: SendStep; gas: GasNeed; topUp: boolean; landed: boolean }
  /** The pool delegates the energy the send needs (energyToHold), asked again until the address holds it. */
  | { kind: 'LEND_ENERGY'; step: SendStep; signedFeeLimitSun: bigint | null; landed: boolean }
  /** The pool delegates the bytes beyond the free allowance; with the pool's bandwidth used up for today, `otherwise` (gas for them). */
  | { kind: 'LEND_BANDWIDTH'; step: SendStep; landed: boolean; otherwise: Need & { kind: 'GAS' } }
  /** A provider rents the energy (lib/energy/rentals.ts), for the attempt. */
  | { kind: 'RENT'; purpose: RentalPurpose; attempt: number };

/**
 * The estimate a plan's amounts are read from, for one send or a payout's wave. `lendEnergy` is
 * what is lent or rented (a wave's adds a unit per send for the rounding of each send's share),
 * `maxSendBurnSun` the most one send would burn (ENERGY_MAX_BURN_TRX caps each send), `sends` how
 * many sends share the rental (its cap is per send).
 */
export interface PlanCost {
  energy: bigint;
  lendEnergy: bigint;
  bandwidth: bigint;
  energyFeeSun: bigint;
  bandwidthFeeSun: bigint;
  maxSendBurnSun: bigint;
  sends: number;
  /** The sending address's energy as the estimate read it (one send's estimate): what its lending's need starts from. */
  senderEnergy?: bigint;
}

export const sendPlanCost = (c: TransferCost): PlanCost => ({
  energy: c.energy,
  lendEnergy: c.energy,
  bandwidth: c.bandwidth,
  energyFeeSun: c.energyFeeSun,
  bandwidthFeeSun: c.bandwidthFeeSun,
  maxSendBurnSun: c.energyFeeSun + c.bandwidthFeeSun,
  sends: 1,
  senderEnergy: c.senderEnergy,
});

export const wavePlanCost = (c: BatchCost): PlanCost => ({
  energy: c.energy,
  lendEnergy: c.energy + BigInt(c.transfers.length),
  bandwidth: c.bandwidth,
  energyFeeSun: c.energyFeeSun,
  bandwidthFeeSun: c.bandwidthFeeSun,
  maxSendBurnSun: c.transfers.reduce((max, t) => (t.energyFeeSun + t.bandwidthFeeSun > max ? t.energyFeeSun + t.bandwidthFeeSun : max), 0n),
  sends: c.transfers.length,
});

/**
 * Where one attempt's prerequisites are kept (their steps, the rental's key) and what the caller
 * allows: `landed`, prerequisites count once in a head block (FORWARD_BEFORE_FINALITY: the send
 * references their block, issue 24); `burnTopUp`, the burn's gas is checked against the fee_limit
 * again each round (a caller whose stored send is checked before broadcast, `underfunded`, and
 * topped up for the same attempt); `signedFeeLimitSun`, the attempt's send is stored, not yet out.
 */
export interface SendShape {
  address: string;
  gas: SendStep;
  energy: SendStep;
  /** Null: the bytes beyond the free allowance are the address's to burn, from gas (BYTES). */
  bandwidth: SendStep | null;
  rental: { purpose: RentalPurpose; attempt: number };
  landed: boolean;
  burnTopUp: boolean;
  signedFeeLimitSun: bigint | null;
}

/**
 * The plan for an attempt paid by `source`. The activation and the pool's lending count once in a
 * head block when the shape allows it (the send references their block: they are ours, bindingBlock);
 * never the gas a send burns (for its energy, or its bytes when the pool's bandwidth is used up):
 * counted from the ledger (spendableTrx), which books it only when final, so nothing is gained.
 */
export async function planSend(ctx: WorkerContext, anchorId: number, source: EnergySource, shape: SendShape): Promise<SendPlan> {
  const { gas, energy, bandwidth, signedFeeLimitSun, landed } = shape;
  if (source === 'BURN') {
    const feeLimit: FeeLimitRule = (await energyThere(ctx, anchorId, shape)) ? 'WHOLE_BURN' : 'BURN';
    return { source, feeLimit, needs: [{ kind: 'GAS', step: gas, gas: signedFeeLimitSun === null ? 'FEE_LIMIT' : { signedFeeLimitSun }, topUp: shape.burnTopUp, landed: false }] };
  }
  if (source === 'RENTAL') {
    return { source, feeLimit: 'LENT', needs: [{ kind: 'GAS', step: gas, gas: 'BYTES', topUp: true, landed }, { kind: 'RENT', ...shape.rental }] };
  }
  const bytesGas = { kind: 'GAS', step: gas, gas: 'BYTES', topUp: true, landed: false } as const;
  const needs: Need[] = [{ kind: 'GAS', step: gas, gas: bandwidth ? 'ACTIVATION' : 'BYTES', topUp: true, landed }, { kind: 'LEND_ENERGY', step: energy, signedFeeLimitSun, landed }];
  if (bandwidth) needs.push({ kind: 'LEND_BANDWIDTH', step: bandwidth, landed, otherwise: bytesGas });
  return { source, feeLimit: 'LENT', needs };
}

/** Whether the address holds energy a burning send would use first: a partly filled rental of the attempt, or a lending still there. */
async function energyThere(ctx: WorkerContext, anchorId: number, shape: SendShape): Promise<boolean> {
  const rental = await rentalFor(ctx, anchorId, shape.rental.purpose, shape.rental.attempt);
  return (rental?.priceSun ?? null) !== null || (await energyAvailable(ctx, shape.address)) > 0n;
}

/** Whether the plan's send burns no TRX for its energy (lent or rented): its fee deducted then is only its bytes. */
export const paidWithLent = (plan: Pick<SendPlan, 'source'>) => plan.source !== 'BURN';

/** The fee_limit (sun) a send is built with under `rule`, from its own estimate. */
export async function feeLimitSun(ctx: WorkerContext, rule: FeeLimitRule, cost: Pick<TransferCost, 'energy' | 'energyFeeSun' | 'bandwidthFeeSun'> & Partial<Pick<TransferCost, 'parameters'>>): Promise<bigint> {
  if (rule === 'BURN') return withMargin(cost.energyFeeSun + cost.bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT);
  // The price the estimate was made at, when it is one (issue 37: read again, a request each build); else read now.
  const price = (cost.parameters ?? (await ctx.chain.getChainParameters())).energyFeeSun;
  if (rule === 'LENT') return withMargin(cost.energy * price, ctx.settings.ENERGY_MARGIN_PERCENT);
  return withMargin(cost.energy * price + cost.bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT);
}

/**
 * The energy an address must hold for a send paid with lent energy: its estimate with
 * ENERGY_MARGIN_PERCENT (what its fee_limit pays for when it is built), or, for a stored send not
 * yet out, all its fee_limit pays for at the price now, if more (a lower price, or a send built on
 * a higher estimate): so nothing it may use is burned (energyShort).
 */
async function energyToHold(ctx: WorkerContext, energy: bigint, signedFeeLimitSun: bigint | null): Promise<bigint> {
  const e = withMargin(energy, ctx.settings.ENERGY_MARGIN_PERCENT);
  if (signedFeeLimitSun === null) return e;
  const byLimit = divCeil(signedFeeLimitSun, (await ctx.chain.getChainParameters()).energyFeeSun);
  return byLimit > e ? byLimit : e;
}

/** What a GAS need asks the address to hold now (sun); `activated`: whether the address is an account, as its round read it. */
async function gasSun(ctx: WorkerContext, need: GasNeed, plan: SendPlan, cost: PlanCost, activated: () => Promise<boolean>): Promise<bigint> {
  if (typeof need === 'object') return need.signedFeeLimitSun;
  if (need === 'FEE_LIMIT') return feeLimitSun(ctx, plan.feeLimit, cost);
  if (!(await activated())) return 1n;
  return need === 'BYTES' ? withMargin(cost.bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT) : 0n;
}

/**
 * Carries the plan out one round: each need in turn, stopping at the first not done. Null once
 * every need is done (the send may be built); else the outcome to answer (pending: it waits,
 * with the reason recorded on the anchor and alerted once; exhausted: a gas or lending step
 * used its attempts up). `cost` is the round's one estimate; `reads` the round's reads of the
 * address (whether it is an account), when the caller has them.
 */
export async function carryOut(
  ctx: WorkerContext,
  anchor: Anchor & Pick<Transaction, 'waitingReason'>,
  plan: SendPlan,
  address: string,
  cost: () => Promise<PlanCost>,
  costPayer: CostPayer,
  what?: string,
  reads?: Pick<SendReads, 'activated'>,
): Promise<SendOutcome | null> {
  const activated = reads?.activated ?? (() => ctx.chain.isActivated(address));
  const wait = async (reason: string): Promise<SendOutcome> => {
    await noteWaiting(ctx, anchor, reason, what);
    return { state: 'pending' };
  };
  const gas = (need: Need & { kind: 'GAS' }) =>
    ensureGas(ctx, anchor, need.step, address, async () => gasSun(ctx, need.gas, plan, await cost(), activated), costPayer, { topUp: need.topUp, energySource: plan.source, landed: need.landed });
  for (const need of plan.needs) {
    let outcome: SendOutcome;
    try {
      if (need.kind === 'GAS') outcome = await gas(need);
      else if (need.kind === 'LEND_ENERGY') {
        // The address's energy is the round's estimate's, not read again, also when the lending confirmed in this round asks
        // whether it still holds it (a top-up; issue 37): the estimate read it at the head, after the lending was in a block.
        const hold = async () => energyToHold(ctx, (await cost()).lendEnergy, need.signedFeeLimitSun);
        outcome = await lend(ctx, anchor, need.step, address, 'ENERGY', hold, costPayer, { landed: need.landed, margin: false, receiverEnergy: async () => (await cost()).senderEnergy });
      } else if (need.kind === 'LEND_BANDWIDTH') {
        const bytes = async () => ((await cost()).bandwidthFeeSun > 0n ? (await cost()).bandwidth : 0n);
        outcome = await lend(ctx, anchor, need.step, address, 'BANDWIDTH', bytes, costPayer, { landed: need.landed }).catch((err: unknown) => {
          if (!(err instanceof EnergyUnavailable)) throw err;
          // The pool's bandwidth is used up for today: the address burns its few hundred bytes instead.
          return gas(need.otherwise);
        });
      } else {
        const c = await cost();
        const capSun = parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
        const rented = await rentEnergy(ctx, anchor, need.purpose, need.attempt, address, c.lendEnergy, async () => (await cost()).maxSendBurnSun <= capSun, c.sends);
        if (rented.state === 'waiting') return wait(rented.reason);
        // Fallen back: the next round chooses again (the pool, or burning within the cap, or waiting), with the reason recorded.
        // Settling: the energy is there, its delegation not final yet (lib/energy/rentals.ts).
        if (rented.state === 'fallback' || rented.state === 'settling') return { state: 'pending' };
        continue;
      }
    } catch (err) {
      if (!(err instanceof EnergyUnavailable)) throw err;
      // Lent in part, then the pool ran short: the attempt waits for it (its first lending keeps the choice).
      return wait(`waiting for energy: ${err.message}`);
    }
    if (outcome.state === 'pending' || outcome.state === 'exhausted') return outcome;
  }
  await noteWaiting(ctx, anchor, null, what);
  return null;
}
