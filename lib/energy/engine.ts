import type { AccountResources, ChainParameters, TransferCost } from '@/lib/chain/types';
import type { EnergySource, Transaction } from '@/lib/generated/prisma/client';
import { gasInUsdt } from '@/lib/rates';
import { TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { spendableTrx } from '@/lib/sends/gas';
import { feeLimitOf } from '@/lib/sends/steps';
import { divCeil, parseScaled } from '@/lib/money/decimal';
import { EnergyUnavailable, energyAvailable, lendingNeed, poolStatus, type PoolStatus } from './pool';
import { recordNotRented, rentalFor, rentalProvider, rentalQuote } from './rentals';

/**
 * The energy engine's choice, per send attempt (docs/energy.md, "Choosing a source"): the pool
 * when it has headroom; otherwise rented energy when a provider is configured and its quote is
 * within ENERGY_RENTAL_MAX_TRX and cheaper than burning (lib/energy/rentals.ts); otherwise burning,
 * only up to ENERGY_MAX_BURN_TRX. Rented or burned energy must also be worth the payment (the
 * payment's worth rule, as for the pool's cost when the payment was judged): a send that would
 * cost more than the payment is worth WAITs for the pool while there is one (it regenerates), and
 * is HELD as uneconomic when there is none (nothing would change by waiting; the merchant may
 * release it). Otherwise the send waits ("waiting for energy"), retried as the pool regenerates.
 * The choice is recorded on the attempt's first gas or lending send and kept for the attempt: an
 * attempt half paid by the pool never switches to burning.
 */
export type SourceChoice =
  | { source: 'POOL' | 'RENTAL' | 'BURN' }
  | { source: 'WAIT'; reason: string }
  /** Not worth it by any source the service has: what the cheapest would cost (sun), and how. */
  | { source: 'HOLD'; costSun: bigint; how: string };

/** A send from a service address that pays its energy per attempt: a payment's forward or refund, a payout's return. */
type Purpose = 'FORWARD' | 'REFUND' | 'PAYOUT_RETURN';
const STEPS = {
  FORWARD: ['FORWARD_GAS', 'FORWARD_ENERGY', 'FORWARD_BANDWIDTH'],
  REFUND: ['REFUND_GAS', 'REFUND_ENERGY', 'REFUND_BANDWIDTH'],
  PAYOUT_RETURN: ['PAYOUT_RETURN_GAS', 'PAYOUT_RETURN_ENERGY'],
} as const;
const stepsOf = (purpose: Purpose) => STEPS[purpose];

/** The source an attempt already uses (its gas, lending or own send says), or null before its first. */
export async function sourceOf(ctx: WorkerContext, paymentId: number, purpose: Purpose, attempt: number): Promise<EnergySource | null> {
  const row = await ctx.prisma.transaction.findFirst({
    where: {
      sourceId: paymentId,
      energySource: { not: null },
      OR: [
        { sendPurpose: { in: [...stepsOf(purpose)] }, sendIndex: attempt },
        { sendPurpose: purpose, sendAttempt: attempt },
      ],
    },
    orderBy: { id: 'asc' },
    select: { energySource: true },
  });
  return row?.energySource ?? null;
}

const toTrx = (sun: bigint) => (Number(sun) / 10 ** TOKEN_DECIMALS).toString();

/**
 * What one round's decision about one send reads from the node, each read at most once (issue 37):
 * the send's estimate and the pool's status. The judgment of its worth (`uneconomic`) and the
 * choice of its source (`energySourceFor`) each read both, and the pool's part of the choice
 * (`lendingNeed`) the pool again, a few milliseconds apart: two estimates and three reads of what
 * the pool can lend for one decision.
 * Made for one send in one round and dropped with the round, so a decision judges reads as new as
 * itself; nothing is kept for the next round, which reads afresh, and a lending's need, the energy at
 * the address before broadcast (`energyShort`) and the upkeep read the node themselves.
 */
export interface SendReads {
  /** The estimate of the send, from the address the decision is about. */
  estimate(): Promise<TransferCost>;
  pool(): Promise<PoolStatus>;
  /**
   * Whether that address is an account at the head: the worth's activation cost and the gas's need
   * each asked it in the first round of an attempt (issue 37).
   */
  activated(): Promise<boolean>;
}

export function sendReads(ctx: WorkerContext, from: string, estimate: () => Promise<TransferCost>): SendReads {
  let estimated: Promise<TransferCost> | undefined;
  let pool: Promise<PoolStatus> | undefined;
  let activated: Promise<boolean> | undefined;
  return {
    estimate: () => (estimated ??= estimate()),
    pool: () => (pool ??= poolStatus(ctx)),
    activated: () => (activated ??= ctx.chain.isActivated(from)),
  };
}

/**
 * `worthUnits`: what the payment is worth moving, in its token (a forward: the payment less the
 * service fee; a refund: the payment); null when no worth rule applies (a merchant released it to
 * be forwarded as it is).
 */
export async function energySourceFor(
  ctx: WorkerContext,
  p: Pick<Transaction, 'id' | 'amountUnits' | 'currency'>,
  purpose: Purpose,
  attempt: number,
  address: string,
  reads: SendReads,
  worthUnits: bigint | null,
): Promise<SourceChoice> {
  const chosen = await sourceOf(ctx, p.id, purpose, attempt);
  if (chosen === 'POOL') return { source: chosen };
  // A rental recorded for the attempt keeps it RENTAL, until it failed or was abandoned before the
  // send was built (lib/energy/rentals.ts): then the attempt burns, within the cap, or waits for the pool.
  const rental = await rentalFor(ctx, p.id, purpose, attempt);
  const rentalOver = rental?.state === 'FAILED' || rental?.state === 'ABANDONED';
  if (!rentalOver && (rental || chosen === 'RENTAL')) return { source: 'RENTAL' };
  if (chosen === 'BURN') return { source: chosen };
  const cost = await reads.estimate();
  const burnSun = cost.energyFeeSun + cost.bandwidthFeeSun;
  const capSun = parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
  let poolWhy: string | null = null;
  const status = await reads.pool();
  if (status.enabled) {
    try {
      // The address's energy as the round's estimate of its send read it (the sender: `address`), not read again.
      await lendingNeed(ctx, address, cost.energy, 'ENERGY', true, status, cost.senderEnergy);
      return { source: 'POOL' };
    } catch (err) {
      if (!(err instanceof EnergyUnavailable)) throw err;
      poolWhy = err.message;
    }
  }
  const activationSun = await activationCostSun(ctx, address, status.resources, cost.parameters, reads.activated);
  const bandwidthSun = bandwidthCostSun(activationSun, cost);
  let rentalWhy: string | null = rentalOver ? (rental?.error ?? 'the rental failed') : null;
  let rentSun: bigint | null = null;
  if (!rentalOver && rentalProvider(ctx.settings)) {
    const quote = await rentalQuote(ctx, cost);
    if ('why' in quote) rentalWhy = quote.why;
    else rentSun = activationSun + bandwidthSun + quote.priceSun;
  }
  const why = [poolWhy ?? (status.enabled ? null : 'the pool has no stake'), rentalWhy].filter(Boolean).join('; ');
  // Worth it: the cheapest of renting and burning (renting is only offered when cheaper than burning);
  // burning judged as it always was (what the send burns: FORWARD_MAX_COST_USDT_IN_TRX, the smallest
  // invoice without a pool, is that with the margin), so an invoice accepted on it is still forwarded.
  const cheapestSun = rentSun ?? burnSun;
  const how = rentSun !== null ? 'renting its energy' : 'burning its energy';
  if (worthUnits !== null && (await costInUnits(ctx, p.currency as Currency, cheapestSun)) >= worthUnits) {
    if (!status.enabled) return { source: 'HOLD', costSun: cheapestSun, how };
    return { source: 'WAIT', reason: `waiting for energy: ${why}; ${how} instead would cost ${toTrx(cheapestSun)} TRX, more than the payment is worth` };
  }
  if (rentSun !== null) return { source: 'RENTAL' };
  if (burnSun > capSun) {
    return { source: 'WAIT', reason: `waiting for energy: burning it would cost ${toTrx(burnSun)} TRX, above ENERGY_MAX_BURN_TRX (${ctx.settings.ENERGY_MAX_BURN_TRX}); ${why}` };
  }
  if (rentalWhy && !rentalOver && rentalProvider(ctx.settings)) await recordNotRented(ctx, p, purpose, attempt, address, cost, rentalWhy);
  return { source: 'BURN' };
}

/**
 * A network cost (sun) as the payment's token judges it: with GAS_MARGIN_PERCENT, and for USDT
 * at the current rates. The one worth rule: a send is worth it while this is below the payment's worth.
 */
export async function costInUnits(ctx: WorkerContext, currency: Currency, costSun: bigint): Promise<bigint> {
  if (currency === 'TRX') return costSun;
  return (await gasInUsdt(ctx.rates, costSun, ctx.settings.GAS_MARGIN_PERCENT)).units;
}

/**
 * Takes a send's part of the energy at an address that parallel sends share in one round (a
 * payout's wave): the address's energy is read once, and each send's check takes what it needs
 * from what is left, so two sends never count the same energy.
 */
export type EnergyShare = (energy: bigint) => Promise<{ ok: boolean; have: bigint }>;

export function sharedEnergy(ctx: WorkerContext, address: string): EnergyShare {
  let left: bigint | null = null;
  let reading: Promise<bigint> | undefined;
  return async (energy) => {
    if (left === null) {
      reading ??= energyAvailable(ctx, address);
      const read = await reading;
      left ??= read;
    }
    // No await from here on: the check and the taking are one step for the sends of the round.
    const have = left;
    if (have < energy) return { ok: false, have };
    left = have - energy;
    return { ok: true, have };
  };
}

/**
 * Why a stored send paid with lent or rented energy must not be broadcast now, or null. Checked on
 * chain against a fresh estimate, whatever a lending claimed:
 * - its fee_limit must pay for the energy the send needs at the price now (a call's energy is capped
 *   at fee_limit / price, its own included): below, it would fail OUT_OF_ENERGY, so it is kept back
 *   until proven dead and rebuilt;
 * - no taking back of the pool's energy may be in flight to the address (it would leave with it);
 * - the address must hold the energy it needs and every unit its fee_limit lets it use beyond its
 *   gas: what a call uses beyond its own energy is burned from the address's TRX, which may be a
 *   customer's or a kept fee, not gas (issue 23). Parallel sends of a payout's wave take their part
 *   of the address's energy (`share`) and count no gas.
 * Short, the attempt's lending step lends the rest before it goes.
 */
export async function energyShort(ctx: WorkerContext, row: Transaction, share?: EnergyShare): Promise<string | null> {
  const cost = await ctx.chain.estimateTransfer({ token: row.currency as Currency, from: row.fromAddress, to: row.toAddress, amount: row.amountUnits });
  // The price that fresh estimate was made at (the chain's parameters were read beside it, as new).
  const price = cost.parameters.energyFeeSun;
  const limit = feeLimitOf(row) ?? cost.energy * price;
  if (limit < cost.energy * price) {
    return `its fee_limit of ${toTrx(limit)} TRX pays for ${limit / price} energy at ${price} sun, the send needs ${cost.energy} now (the price or its energy rose since it was built); rebuilt once it is proven dead`;
  }
  const takingBack = await ctx.prisma.transaction.findFirst({ where: { type: 'UNDELEGATE', toAddress: row.fromAddress, sendState: { in: ['SIGNED', 'BROADCAST'] } }, select: { trnHash: true } });
  if (takingBack) return `waiting for energy: the pool is taking back what it lent the address (${takingBack.trnHash}); lent again once that is final`;
  const gas = share ? 0n : await spendableTrx(ctx, row.fromAddress);
  const beyondGas = limit > gas ? divCeil(limit - gas, price) : 0n;
  const needed = beyondGas > cost.energy ? beyondGas : cost.energy;
  // The address's energy as its fresh estimate read it, a moment ago (issue 37: read again here, the same account's resources).
  const { ok, have } = share ? await share(needed) : { ok: cost.senderEnergy >= needed, have: cost.senderEnergy };
  if (!ok) return `waiting for energy: the address has ${have} of the ${needed} energy the send needs (its ${cost.energy}, and all its fee_limit could burn beyond its gas); the pool or the rental provider supplies the rest first`;
  const bandwidthGas = share ? await spendableTrx(ctx, row.fromAddress) : gas;
  if (bandwidthGas < cost.bandwidthFeeSun) return `waiting for bandwidth: the send would burn ${toTrx(cost.bandwidthFeeSun)} TRX for bandwidth and the address holds ${toTrx(bandwidthGas)} TRX of gas; lent or topped up first`;
  return null;
}

/**
 * Records (or clears) why a payment's send (or a payout's wave, on its first top-up) waits, shown
 * with it and counted by /metrics; alerts once, when it starts waiting: a reason that changes while
 * it waits (a rental's "filled X of Y") is recorded without a new alert.
 */
export async function noteWaiting(ctx: WorkerContext, p: Pick<Transaction, 'id' | 'waitingReason'>, reason: string | null, what = `payment ${p.id}`): Promise<void> {
  if (p.waitingReason === reason) return;
  if (reason && !p.waitingReason) console.error(`ALERT ${what}: ${reason}`);
  await ctx.prisma.transaction.update({ where: { id: p.id }, data: { waitingReason: reason } });
  p.waitingReason = reason;
}

/**
 * What a send from `from` costs with the cheapest source the service has (docs/energy.md): with
 * the pool, only what its energy does not cover (the address's activation, bandwidth beyond its
 * free allowance), judged so even while the pool is lent out (the send waits for it to
 * regenerate); without, rented energy when the provider quotes within ENERGY_RENTAL_MAX_TRX and
 * below burning (with the activation, as for the pool), else everything the send burns. Judges
 * whether a payment is worth moving (lib/payments/invoiceSends.ts) and so the smallest invoice
 * that is.
 */
export async function cheapestCostSun(ctx: WorkerContext, from: string, cost: TransferCost, reads: Pick<SendReads, 'pool' | 'activated'> = sendReads(ctx, from, () => Promise.resolve(cost))): Promise<bigint> {
  if (cost.energy === 0n) return cost.totalFeeSun;
  const status = await reads.pool();
  const activationSun = await activationCostSun(ctx, from, status.resources, cost.parameters, reads.activated);
  const bandwidthSun = bandwidthCostSun(activationSun, cost);
  if (status.enabled) return activationSun + bandwidthSun;
  // Burning, as it was always judged: what the send burns (the smallest invoice without a pool is that with the margin).
  if (!rentalProvider(ctx.settings)) return cost.totalFeeSun;
  const quote = await rentalQuote(ctx, cost);
  return 'why' in quote ? cost.totalFeeSun : activationSun + bandwidthSun + quote.priceSun;
}

/**
 * What the send's bytes cost: none from an address not yet an account (activationSun > 0): the
 * node's estimate burns them, as an address that is not an account has no free bandwidth, but its
 * activation gives it the free daily allowance, which covers one send.
 */
const bandwidthCostSun = (activationSun: bigint, cost: TransferCost) => (activationSun > 0n ? 0n : cost.bandwidthFeeSun);

/**
 * What making `address` an account costs the gas wallet (0 when it is one): the network's system
 * fee, and its create-account fee unless the wallet's staked bandwidth covers the transfer. A
 * decision that read them already passes the chain's parameters (its estimate's) and whether the
 * address is an account (its round's `SendReads.activated`): not asked again (issue 37).
 */
export async function activationCostSun(
  ctx: WorkerContext,
  address: string,
  gasWallet?: AccountResources,
  parameters?: ChainParameters,
  activated: () => Promise<boolean> = () => ctx.chain.isActivated(address),
): Promise<bigint> {
  if (await activated()) return 0n;
  const [params, wallet] = await Promise.all([parameters ?? ctx.chain.getChainParameters(), gasWallet ?? ctx.chain.getAccountResources(ctx.gasWallet.address)]);
  const stakedBandwidth = wallet.stakedBandwidthLimit - wallet.stakedBandwidthUsed;
  return params.createAccountSystemFeeSun + (stakedBandwidth >= ACTIVATION_BYTES * params.createAccountBandwidthRate ? 0n : params.createAccountFeeSun);
}

/** Bandwidth of the TRX transfer that activates an address (about 268 bytes; rounded up). */
export const ACTIVATION_BYTES = 300n;
