import type { TransferCost } from '@/lib/chain/types';
import type { EnergyRental, Transaction } from '@/lib/generated/prisma/client';
import type { WorkerSettings } from '@/lib/config';
import { bookRental } from '@/lib/ledger/book';
import { parseScaled } from '@/lib/money/decimal';
import { withMargin } from '@/lib/money/fees';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { energyAvailable } from './pool';
import { RentalRefused, RentalUnavailable, rentalClient, type RentalClient } from './rental';
import { derived } from '@/lib/singletons';

/**
 * Rented energy as a stored, idempotent step of a send attempt (docs/energy.md, "Rented energy").
 * The order is recorded (energy_rentals, state ORDERING, out_trade_no from the payment, purpose and
 * attempt) BEFORE the provider is called, so a worker killed between the call and its answer asks
 * again with the same out_trade_no and never places a second order for the attempt. Delivery is
 * verified on chain (EnergyLimit - EnergyUsed at the address), whatever the provider says; an order
 * unfilled after ENERGY_RENTAL_WAIT_SECONDS is abandoned for burning (within ENERGY_MAX_BURN_TRX)
 * only while the attempt's send is not built, else it keeps waiting. Rented energy returns to the
 * provider by itself at the period's end: nothing is undelegated here.
 */

/** The sends a rental is for: a forward's, refund's or payout return's attempt, or a payout's wave (attempt = the wave). */
export type RentalPurpose = 'FORWARD' | 'REFUND' | 'PAYOUT_RETURN' | 'PAYOUT_TARGET';
const TRADE_NAMES: Record<RentalPurpose, string> = { FORWARD: 'forward', REFUND: 'refund', PAYOUT_RETURN: 'return', PAYOUT_TARGET: 'payout' };

/** The provider's minimum order (api/order-price.md: "at least 10000"). */
const MIN_ORDER_ENERGY = 10_000n;
/** How long renting stays paused after the provider charged an order above ENERGY_RENTAL_MAX_TRX. */
const OVERCHARGE_PAUSE_MS = 3_600_000;

/** The configured provider's client, or null when ENERGY_RENTAL_URL is unset (nothing is rented). */
export function rentalProvider(settings: WorkerSettings): RentalClient | null {
  if (!settings.ENERGY_RENTAL_URL) return null;
  // A client is code: one per copy of lib/ (lib/singletons.ts), for each settings object.
  const clients = derived(rentalClient, () => new WeakMap<WorkerSettings, RentalClient>());
  let client = clients.get(settings);
  if (!client) {
    client = rentalClient({ url: settings.ENERGY_RENTAL_URL, apiKey: settings.ENERGY_RENTAL_API_KEY, apiSecret: settings.ENERGY_RENTAL_API_SECRET, period: settings.ENERGY_RENTAL_PERIOD, timeoutMs: settings.ENERGY_RENTAL_TIMEOUT_MS });
    clients.set(settings, client);
  }
  return client;
}

/** Our name for an attempt's order at the provider (`out_trade_no`). */
export const outTradeNo = (paymentId: number, purpose: RentalPurpose, attempt: number) => `p${paymentId}-${TRADE_NAMES[purpose]}-${attempt}`;

const toTrx = (sun: bigint) => (Number(sun) / 10 ** TOKEN_DECIMALS).toString();

/** The energy ordered for a send that needs `need`: with ENERGY_MARGIN_PERCENT, at least the provider's minimum. */
const orderEnergy = (settings: WorkerSettings, need: bigint) => {
  const e = withMargin(need, settings.ENERGY_MARGIN_PERCENT);
  return e < MIN_ORDER_ENERGY ? MIN_ORDER_ENERGY : e;
};

const isRentalError = (err: unknown): err is Error => err instanceof RentalUnavailable || err instanceof RentalRefused;

/** The most a rental for `sends` sends may cost (ENERGY_RENTAL_MAX_TRX is per send). */
const capSunFor = (settings: WorkerSettings, sends: number) => parseScaled(settings.ENERGY_RENTAL_MAX_TRX, TOKEN_DECIMALS) * BigInt(sends);

/**
 * Why renting is paused, or null: the provider charged an order above ENERGY_RENTAL_MAX_TRX within
 * the last hour (the cap is checked on the quote, but only the charge is what was paid): no more is
 * rented from it until an hour has passed, so a provider that charges more than it quotes cannot
 * keep doing so. The overcharge was alerted when it was booked.
 */
async function rentingPaused(ctx: WorkerContext): Promise<string | null> {
  const over = await ctx.prisma.energyRental.findFirst({
    where: { orderedAt: { gte: new Date(Date.now() - OVERCHARGE_PAUSE_MS) }, overchargedSun: { gt: 0n } },
    orderBy: { id: 'desc' },
  });
  return over ? `renting is paused: the provider charged order ${over.serial} (${over.outTradeNo}) ${toTrx(over.priceSun!)} TRX, above ENERGY_RENTAL_MAX_TRX, at ${over.orderedAt!.toISOString()}` : null;
}

export type RentalQuote = { priceSun: bigint } | { why: string };

/**
 * What renting the energy of `sends` sends costs now (sun), or why it should not be rented: the
 * provider is configured and not paused, answers a quote, and the quote is within
 * ENERGY_RENTAL_MAX_TRX per send and cheaper than burning.
 */
export async function rentalQuote(ctx: WorkerContext, cost: Pick<TransferCost, 'energy' | 'energyFeeSun'>, sends = 1): Promise<RentalQuote> {
  const client = rentalProvider(ctx.settings);
  if (!client) return { why: 'no energy rental provider is configured' };
  const paused = await rentingPaused(ctx);
  if (paused) return { why: paused };
  let quote: bigint;
  try {
    quote = await client.quote(orderEnergy(ctx.settings, cost.energy));
  } catch (err) {
    if (!isRentalError(err)) throw err;
    return { why: `the energy rental provider is unavailable (${err.message})` };
  }
  if (quote > capSunFor(ctx.settings, sends)) return { why: `renting it would cost ${toTrx(quote)} TRX, above ENERGY_RENTAL_MAX_TRX (${ctx.settings.ENERGY_RENTAL_MAX_TRX} per send)` };
  if (quote >= cost.energyFeeSun) return { why: `renting it would cost ${toTrx(quote)} TRX, not less than burning it (${toTrx(cost.energyFeeSun)} TRX)` };
  return { priceSun: quote };
}

/**
 * Records that the attempt burns instead of renting, and why (the provider down, refusing, or dearer
 * than the cap): the choice is kept for the attempt and visible with it. Not recorded when the send
 * only waits: the provider is asked again next round.
 */
export async function recordNotRented(ctx: WorkerContext, p: Pick<Transaction, 'id'>, purpose: RentalPurpose, attempt: number, address: string, cost: TransferCost, why: string): Promise<void> {
  await ctx.prisma.energyRental.createMany({
    data: [{ paymentId: p.id, purpose, attempt, outTradeNo: outTradeNo(p.id, purpose, attempt), receiveAddress: address, energyAmount: orderEnergy(ctx.settings, cost.energy), period: ctx.settings.ENERGY_RENTAL_PERIOD, state: 'FAILED', error: why }],
    skipDuplicates: true,
  });
}

/**
 * Whether a send the rental pays for is built: the attempt's own send, or for a payout's wave
 * (attempt = the wave) any target's send built since the order was recorded.
 */
async function sendBuilt(ctx: WorkerContext, anchorId: number, purpose: RentalPurpose, attempt: number, rental: EnergyRental): Promise<boolean> {
  const where = purpose === 'PAYOUT_TARGET' ? { sourceId: anchorId, sendPurpose: purpose, createdAt: { gte: rental.createdAt } } : { sourceId: anchorId, sendPurpose: purpose, sendAttempt: attempt };
  return (await ctx.prisma.transaction.count({ where })) > 0;
}

/** The attempt's rental row, if one was recorded. */
export function rentalFor(ctx: WorkerContext, paymentId: number, purpose: RentalPurpose, attempt: number): Promise<EnergyRental | null> {
  return ctx.prisma.energyRental.findUnique({ where: { outTradeNo: outTradeNo(paymentId, purpose, attempt) } });
}

/** `settling`: the energy is there, in a block that is not final yet; asked again next round. */
export type RentalStep = { state: 'ready' } | { state: 'settling' } | { state: 'waiting'; reason: string } | { state: 'fallback'; reason: string };

/**
 * Drives the attempt's rental one round: records and places the order, then waits for the
 * energy on chain. `burnAllowed` says whether burning instead is within the cap now (a fallback
 * that would only wait is not taken: the order may still fill), and never once a send it paid for is
 * built (`sendBuilt`). A payout's wave passes the number of its sends (the cap is per send).
 */
export async function rentEnergy(
  ctx: WorkerContext,
  p: Pick<Transaction, 'id' | 'invoiceId'>,
  purpose: RentalPurpose,
  attempt: number,
  address: string,
  need: bigint,
  burnAllowed: () => Promise<boolean>,
  sends = 1,
): Promise<RentalStep> {
  const key = outTradeNo(p.id, purpose, attempt);
  const what = purpose === 'PAYOUT_TARGET' ? `payout ${p.invoiceId} (wave ${attempt})` : purpose === 'PAYOUT_RETURN' ? `payout ${p.invoiceId} (return)` : `payment ${p.id}`;
  let row = await ctx.prisma.energyRental.findUnique({ where: { outTradeNo: key } });
  if (row?.state === 'FAILED' || row?.state === 'ABANDONED') return { state: 'fallback', reason: row.error ?? 'the rental failed' };
  const client = rentalProvider(ctx.settings);
  const capSun = capSunFor(ctx.settings, sends);
  // An order posted in an earlier round whose answer never came may have been placed and charged:
  // said with any end of the row that follows, and reconcile points at it.
  const postedBefore = row?.orderPostedAt ?? null;
  const unanswered = (postedAt: Date | null) =>
    postedAt ? `; order ${key} was posted at ${postedAt.toISOString()} and never answered: the provider may have placed and charged it (check its account; npm run reconcile compares its total)` : '';
  const fail = async (error: string): Promise<RentalStep> => {
    // Recorded, so the attempt never orders later (a crash must not make it order after falling back).
    await ctx.prisma.energyRental.upsert({
      where: { outTradeNo: key },
      create: { paymentId: p.id, purpose, attempt, outTradeNo: key, receiveAddress: address, energyAmount: orderEnergy(ctx.settings, need), period: ctx.settings.ENERGY_RENTAL_PERIOD, state: 'FAILED', error },
      update: { state: 'FAILED', error },
    });
    console.error(`ALERT ${what}: energy rental ${key} failed: ${error}${unanswered(postedBefore)}; the send burns within ENERGY_MAX_BURN_TRX or waits`);
    return { state: 'fallback', reason: error };
  };
  /** A fresh quote for the order, or why not to place it (a retried order is quoted again: prices move). */
  const quoteFor = async (energy: bigint): Promise<bigint | string> => {
    if (!client) return 'no energy rental provider is configured';
    const paused = await rentingPaused(ctx);
    if (paused) return paused;
    let quote: bigint;
    try {
      quote = await client.quote(energy);
    } catch (err) {
      if (!isRentalError(err)) throw err;
      return `the energy rental provider is unavailable (${err.message})`;
    }
    if (quote > capSun) return `renting it would cost ${toTrx(quote)} TRX, above ENERGY_RENTAL_MAX_TRX (${ctx.settings.ENERGY_RENTAL_MAX_TRX} per send)`;
    return quote;
  };
  if (!row) {
    // Energy already there (rented earlier and not yet used): nothing to order.
    if ((await energyAvailable(ctx, address)) >= need) return { state: 'ready' };
    const energy = orderEnergy(ctx.settings, need);
    const quote = await quoteFor(energy);
    if (typeof quote === 'string') return fail(quote);
    try {
      row = await ctx.prisma.energyRental.create({ data: { paymentId: p.id, purpose, attempt, outTradeNo: key, receiveAddress: address, energyAmount: energy, period: ctx.settings.ENERGY_RENTAL_PERIOD, state: 'ORDERING', quotedPriceSun: quote } });
    } catch (err) {
      if ((err as { code?: string }).code === 'P2002') return { state: 'waiting', reason: 'waiting for energy: another worker orders it' };
      throw err;
    }
  } else if (row.state === 'ORDERING' && postedBefore) {
    // Posted before and not answered (or a worker died before storing the answer): quoted again, within the cap, before it is posted again.
    const quote = await quoteFor(row.energyAmount);
    if (typeof quote === 'string') {
      if (!client) return { state: 'waiting', reason: `waiting for energy: rental order ${key} was placed, but ENERGY_RENTAL_URL is no longer set` };
      if (quote.startsWith('the energy rental provider is unavailable')) return { state: 'waiting', reason: `waiting for energy: rental order ${key}: ${quote}; asked again` };
      return fail(`not ordered again: ${quote}`);
    }
    await ctx.prisma.energyRental.updateMany({ where: { id: row.id, state: 'ORDERING' }, data: { quotedPriceSun: quote } });
    row.quotedPriceSun = quote;
  }
  const waitMs = ctx.settings.ENERGY_RENTAL_WAIT_SECONDS * 1000;
  // The attempt may burn instead only while its send is not built: once built it may be out (a dead worker's broadcast).
  const mayFallBack = async (current: EnergyRental) => !(await sendBuilt(ctx, p.id, purpose, attempt, current)) && (await burnAllowed());
  const abandon = async (current: EnergyRental, reason: string): Promise<RentalStep> => {
    await ctx.prisma.energyRental.updateMany({ where: { id: current.id, state: current.state }, data: { state: 'ABANDONED', error: reason } });
    console.error(`ALERT ${what}: energy rental ${key} abandoned: ${reason}${current.priceSun === null ? unanswered(current.orderPostedAt) : ''}; the send burns instead`);
    return { state: 'fallback', reason };
  };
  if (row.state === 'ORDERING') {
    if (!client) return { state: 'waiting', reason: `waiting for energy: rental order ${key} was placed, but ENERGY_RENTAL_URL is no longer set` };
    // Stored before the request goes out: from here on the provider may have placed it, whatever we hear.
    if (!row.orderPostedAt) {
      row.orderPostedAt = new Date();
      await ctx.prisma.energyRental.updateMany({ where: { id: row.id, state: 'ORDERING' }, data: { orderPostedAt: row.orderPostedAt } });
    }
    try {
      const order = await client.order(address, row.energyAmount, key);
      const ordered = row;
      // The cap is checked on the quote; what was charged is what was paid: booked whatever it is, alerted above the cap.
      const overchargedSun = order.priceSun > capSun ? order.priceSun - capSun : null;
      row = await ctx.prisma.$transaction(async (tx) => {
        const { count } = await tx.energyRental.updateMany({ where: { id: ordered.id, state: 'ORDERING' }, data: { state: 'ORDERED', serial: order.serial, priceSun: order.priceSun, overchargedSun, orderedAt: new Date(), error: null } });
        if (count === 1) await bookRental(tx, p, { outTradeNo: key, serial: order.serial, priceSun: order.priceSun, energyAmount: ordered.energyAmount });
        return tx.energyRental.findUniqueOrThrow({ where: { id: ordered.id } });
      });
      if (overchargedSun !== null) {
        console.error(`ALERT ${what}: the energy rental provider charged order ${order.serial} (${key}) ${toTrx(order.priceSun)} TRX, above ENERGY_RENTAL_MAX_TRX (${toTrx(capSun)} TRX for it; quoted ${row.quotedPriceSun === null ? 'unknown' : toTrx(row.quotedPriceSun)} TRX); booked as charged, and renting is paused for an hour`);
      }
      console.log(`${what}: rented ${row.energyAmount} energy for ${address} (order ${order.serial}, ${toTrx(order.priceSun)} TRX; ${toTrx(order.providerBalanceSun)} TRX left at the provider)`);
    } catch (err) {
      if (err instanceof RentalRefused) return fail(`the energy rental provider refused the order (${err.message})`);
      if (!(err instanceof RentalUnavailable)) throw err;
      // Whether the provider placed it is unknown: asked again with the same out_trade_no, until the wait is over.
      const reason = `waiting for energy: the rental provider did not answer order ${key} (${err.message}); asked again`;
      if (Date.now() - row.createdAt.getTime() > waitMs && (await mayFallBack(row))) return abandon(row, `the rental provider did not answer order ${key} in ${ctx.settings.ENERGY_RENTAL_WAIT_SECONDS} s (${err.message})`);
      return { state: 'waiting', reason };
    }
  }
  // ORDERED or FILLED: the chain decides.
  const have = await energyAvailable(ctx, address);
  if (have >= need) {
    if (row.state === 'ORDERED') await ctx.prisma.energyRental.updateMany({ where: { id: row.id, state: 'ORDERED' }, data: { state: 'FILLED' } });
    // The provider's delegation is its transaction, not ours: a send cannot reference its block (bindingBlock binds
    // ours). Built on it before it is final, a send that a reorganisation left without it would run without the
    // energy and burn TRX at the address, a customer's held TRX among it (issue 35). So it waits until every
    // delegation to the address is final: the energy as of the solidified head. Not a wait worth an alert.
    const [headSun, finalSun] = await Promise.all([ctx.chain.getDelegatedInSun(address, 'ENERGY'), ctx.chain.getDelegatedInSun(address, 'ENERGY', 'solidified')]);
    if (headSun > finalSun) return { state: 'settling' };
    return { state: 'ready' };
  }
  let filled: string;
  try {
    if (!client) throw new RentalUnavailable('ENERGY_RENTAL_URL is no longer set');
    const st = await client.status(row.serial!);
    filled = `filled ${st.filledEnergy} of ${st.energyAmount} (${st.state})`;
  } catch (err) {
    if (!isRentalError(err)) throw err;
    filled = `status unknown (${err.message})`;
  }
  const reason = `waiting for energy: rental order ${row.serial} ${filled}; the address has ${have} of the ${need} energy the send needs`;
  if (Date.now() - (row.orderedAt ?? row.createdAt).getTime() > waitMs && (await mayFallBack(row))) return abandon(row, `${reason.replace('waiting for energy: ', '')}, after ${ctx.settings.ENERGY_RENTAL_WAIT_SECONDS} s`);
  return { state: 'waiting', reason };
}
