import type { TransferCost } from '@/lib/chain/types';
import type { EnergySource, Transaction } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { convertUnits, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS, TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { spendableTrx } from '@/lib/payments/gas';
import { EnergyUnavailable, energyAvailable, lendingNeed, poolStatus } from './pool';
import { recordNotRented, rentalFor, rentalProvider, rentalWhyNot } from './rentals';

/**
 * The energy engine's choice, per send attempt (docs/energy.md, "Choosing a source"): the pool
 * when it has headroom; otherwise rented energy when a provider is configured and its quote is
 * within ENERGY_RENTAL_MAX_TRX and cheaper than burning (lib/energy/rentals.ts); otherwise burning, only up to ENERGY_MAX_BURN_TRX and, with a pool, only
 * when the burn is worth the payment (a small payment waits for the pool rather than lose more
 * than it is worth); otherwise the send waits ("waiting for energy"), retried as the pool
 * regenerates. The choice is recorded on the attempt's first gas or lending send and kept for
 * the attempt: an attempt half paid by the pool never switches to burning.
 */
export type SourceChoice = { source: 'POOL' | 'RENTAL' | 'BURN' } | { source: 'WAIT'; reason: string };

type Purpose = 'FORWARD' | 'REFUND';
const stepsOf = (purpose: Purpose) => (purpose === 'FORWARD' ? (['FORWARD_GAS', 'FORWARD_ENERGY', 'FORWARD_BANDWIDTH'] as const) : (['REFUND_GAS', 'REFUND_ENERGY', 'REFUND_BANDWIDTH'] as const));

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

export async function energySourceFor(
  ctx: WorkerContext,
  p: Pick<Transaction, 'id' | 'amountUnits' | 'currency'>,
  purpose: Purpose,
  attempt: number,
  address: string,
  estimate: () => Promise<TransferCost>,
): Promise<SourceChoice> {
  const chosen = await sourceOf(ctx, p.id, purpose, attempt);
  if (chosen === 'POOL') return { source: chosen };
  // A rental recorded for the attempt keeps it RENTAL, until it failed or was abandoned before the
  // send was built (lib/energy/rentals.ts): then the attempt burns, within the cap, or waits.
  const rental = await rentalFor(ctx, p.id, purpose, attempt);
  const rentalOver = rental?.state === 'FAILED' || rental?.state === 'ABANDONED';
  if (!rentalOver && (rental || chosen === 'RENTAL')) return { source: 'RENTAL' };
  if (chosen === 'BURN') return { source: chosen };
  const cost = await estimate();
  const burnSun = cost.energyFeeSun + cost.bandwidthFeeSun;
  const capSun = parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
  let poolWhy: string | null = null;
  if (!rentalOver) {
    const status = await poolStatus(ctx);
    if (status.enabled) {
      try {
        await lendingNeed(ctx, address, cost.energy);
        return { source: 'POOL' };
      } catch (err) {
        if (!(err instanceof EnergyUnavailable)) throw err;
        poolWhy = err.message;
      }
    }
  }
  let rentalWhy: string | null = rentalOver ? (rental?.error ?? 'the rental failed') : null;
  if (!rentalOver && rentalProvider(ctx.settings)) {
    rentalWhy = await rentalWhyNot(ctx, cost);
    if (rentalWhy === null) return { source: 'RENTAL' };
  }
  const why = [poolWhy ?? (rentalOver ? null : 'the pool has no stake'), rentalWhy].filter(Boolean).join('; ');
  if (burnSun > capSun) {
    return { source: 'WAIT', reason: `waiting for energy: burning it would cost ${toTrx(burnSun)} TRX, above ENERGY_MAX_BURN_TRX (${ctx.settings.ENERGY_MAX_BURN_TRX}); ${why}` };
  }
  if (poolWhy && !(await burnWorthIt(ctx, p, burnSun))) {
    return { source: 'WAIT', reason: `waiting for energy: ${why}; burning ${toTrx(burnSun)} TRX instead would cost more than the payment is worth` };
  }
  if (rentalWhy && !rentalOver && rentalProvider(ctx.settings)) await recordNotRented(ctx, p, purpose, attempt, address, cost, rentalWhy);
  return { source: 'BURN' };
}

/** Whether the attempt may burn instead now: the burn within ENERGY_MAX_BURN_TRX (a rental's fallback). */
export async function burnWithinCap(ctx: WorkerContext, estimate: () => Promise<TransferCost>): Promise<boolean> {
  const cost = await estimate();
  return cost.energyFeeSun + cost.bandwidthFeeSun <= parseScaled(ctx.settings.ENERGY_MAX_BURN_TRX, TOKEN_DECIMALS);
}

/** Whether burning `burnSun` (with the gas margin) for a send of this payment costs less than the payment moves. */
async function burnWorthIt(ctx: WorkerContext, p: Pick<Transaction, 'amountUnits' | 'currency'>, burnSun: bigint): Promise<boolean> {
  const withGas = withMargin(burnSun, ctx.settings.GAS_MARGIN_PERCENT);
  if ((p.currency as Currency) === 'TRX') return withGas < p.amountUnits;
  const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
  return convertUnits(withGas, parseScaled(trx.rateUsd, RATE_DECIMALS), parseScaled(usdt.rateUsd, RATE_DECIMALS)) < p.amountUnits;
}

/**
 * Why a stored send paid by the pool must not be broadcast now, or null: the energy is verified on
 * chain (EnergyLimit - EnergyUsed at the address) against a fresh estimate, whatever a lending
 * claimed; short, the attempt's lending step lends the rest before it goes.
 */
export async function energyShort(ctx: WorkerContext, row: Transaction): Promise<string | null> {
  const cost = await ctx.chain.estimateTransfer({ token: row.currency as Currency, from: row.fromAddress, to: row.toAddress, amount: row.amountUnits });
  const have = await energyAvailable(ctx, row.fromAddress);
  if (have < cost.energy) return `waiting for energy: the address has ${have} of the ${cost.energy} energy the send needs; the pool or the rental provider supplies the rest first`;
  const gas = await spendableTrx(ctx, row.fromAddress);
  if (gas < cost.bandwidthFeeSun) return `waiting for bandwidth: the send would burn ${toTrx(cost.bandwidthFeeSun)} TRX for bandwidth and the address holds ${toTrx(gas)} TRX of gas; lent or topped up first`;
  return null;
}

/** Records (or clears) why a payment's send waits, shown with the payment; alerts when it starts waiting. */
export async function noteWaiting(ctx: WorkerContext, p: Pick<Transaction, 'id' | 'waitingReason'>, reason: string | null): Promise<void> {
  if (p.waitingReason === reason) return;
  if (reason) console.error(`ALERT payment ${p.id}: ${reason}`);
  await ctx.prisma.transaction.update({ where: { id: p.id }, data: { waitingReason: reason } });
  p.waitingReason = reason;
}

/**
 * What a send from `from` costs with the cheapest source the service has (docs/energy.md): with
 * the pool, only what its energy does not cover (the address's activation, bandwidth beyond its
 * free allowance); without, everything the send burns. Judges whether a payment is worth moving
 * (lib/payments/invoiceSends.ts) and so the smallest invoice that is.
 */
export async function cheapestCostSun(ctx: WorkerContext, from: string, cost: TransferCost): Promise<bigint> {
  if (cost.energy === 0n) return cost.totalFeeSun;
  const status = await poolStatus(ctx);
  if (!status.enabled) return cost.totalFeeSun;
  if (await ctx.chain.isActivated(from)) return cost.bandwidthFeeSun;
  const params = await ctx.chain.getChainParameters();
  // The gas wallet activates the address: the system fee, and the create-account fee unless its staked bandwidth covers the transfer.
  const stakedBandwidth = status.resources.stakedBandwidthLimit - status.resources.stakedBandwidthUsed;
  return params.createAccountSystemFeeSun + (stakedBandwidth >= ACTIVATION_BYTES * params.createAccountBandwidthRate ? 0n : params.createAccountFeeSun);
}

/** Bandwidth of the TRX transfer that activates an address (about 268 bytes; rounded up). */
const ACTIVATION_BYTES = 300n;
