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

type Purpose = 'FORWARD' | 'REFUND';

/** The provider's minimum order (api/order-price.md: "at least 10000"). */
const MIN_ORDER_ENERGY = 10_000n;

const clients = new WeakMap<WorkerSettings, RentalClient>();

/** The configured provider's client, or null when ENERGY_RENTAL_URL is unset (nothing is rented). */
export function rentalProvider(settings: WorkerSettings): RentalClient | null {
  if (!settings.ENERGY_RENTAL_URL) return null;
  let client = clients.get(settings);
  if (!client) {
    client = rentalClient({ url: settings.ENERGY_RENTAL_URL, apiKey: settings.ENERGY_RENTAL_API_KEY, apiSecret: settings.ENERGY_RENTAL_API_SECRET, period: settings.ENERGY_RENTAL_PERIOD, timeoutMs: settings.ENERGY_RENTAL_TIMEOUT_MS });
    clients.set(settings, client);
  }
  return client;
}

/** Our name for an attempt's order at the provider (`out_trade_no`). */
export const outTradeNo = (paymentId: number, purpose: Purpose, attempt: number) => `p${paymentId}-${purpose.toLowerCase()}-${attempt}`;

const toTrx = (sun: bigint) => (Number(sun) / 10 ** TOKEN_DECIMALS).toString();

/** The energy ordered for a send that needs `need`: with ENERGY_MARGIN_PERCENT, at least the provider's minimum. */
const orderEnergy = (settings: WorkerSettings, need: bigint) => {
  const e = withMargin(need, settings.ENERGY_MARGIN_PERCENT);
  return e < MIN_ORDER_ENERGY ? MIN_ORDER_ENERGY : e;
};

const isRentalError = (err: unknown): err is Error => err instanceof RentalUnavailable || err instanceof RentalRefused;

/**
 * Why the send should not rent its energy now, or null when it should: the provider is configured,
 * answers a quote, and the quote is within ENERGY_RENTAL_MAX_TRX and cheaper than burning.
 */
export async function rentalWhyNot(ctx: WorkerContext, cost: TransferCost): Promise<string | null> {
  const client = rentalProvider(ctx.settings);
  if (!client) return 'no energy rental provider is configured';
  let quote: bigint;
  try {
    quote = await client.quote(orderEnergy(ctx.settings, cost.energy));
  } catch (err) {
    if (!isRentalError(err)) throw err;
    return `the energy rental provider is unavailable (${err.message})`;
  }
  const capSun = parseScaled(ctx.settings.ENERGY_RENTAL_MAX_TRX, TOKEN_DECIMALS);
  if (quote > capSun) return `renting it would cost ${toTrx(quote)} TRX, above ENERGY_RENTAL_MAX_TRX (${ctx.settings.ENERGY_RENTAL_MAX_TRX})`;
  if (quote >= cost.energyFeeSun) return `renting it would cost ${toTrx(quote)} TRX, not less than burning it (${toTrx(cost.energyFeeSun)} TRX)`;
  return null;
}

/**
 * Records that the attempt burns instead of renting, and why (the provider down, refusing, or dearer
 * than the cap): the choice is kept for the attempt and visible with it. Not recorded when the send
 * only waits: the provider is asked again next round.
 */
export async function recordNotRented(ctx: WorkerContext, p: Pick<Transaction, 'id'>, purpose: Purpose, attempt: number, address: string, cost: TransferCost, why: string): Promise<void> {
  await ctx.prisma.energyRental.createMany({
    data: [{ paymentId: p.id, purpose, attempt, outTradeNo: outTradeNo(p.id, purpose, attempt), receiveAddress: address, energyAmount: orderEnergy(ctx.settings, cost.energy), period: ctx.settings.ENERGY_RENTAL_PERIOD, state: 'FAILED', error: why }],
    skipDuplicates: true,
  });
}

/** The attempt's rental row, if one was recorded. */
export function rentalFor(ctx: WorkerContext, paymentId: number, purpose: Purpose, attempt: number): Promise<EnergyRental | null> {
  return ctx.prisma.energyRental.findUnique({ where: { outTradeNo: outTradeNo(paymentId, purpose, attempt) } });
}

export type RentalStep = { state: 'ready' } | { state: 'waiting'; reason: string } | { state: 'fallback'; reason: string };

/**
 * Drives the attempt's rental one round: records and places the order, then waits for the
 * energy on chain. `burnAllowed` says whether burning instead is within the cap now (a fallback
 * that would only wait is not taken: the order may still fill).
 */
export async function rentEnergy(
  ctx: WorkerContext,
  p: Pick<Transaction, 'id' | 'invoiceId'>,
  purpose: Purpose,
  attempt: number,
  address: string,
  need: bigint,
  burnAllowed: () => Promise<boolean>,
): Promise<RentalStep> {
  const key = outTradeNo(p.id, purpose, attempt);
  let row = await ctx.prisma.energyRental.findUnique({ where: { outTradeNo: key } });
  if (row?.state === 'FAILED' || row?.state === 'ABANDONED') return { state: 'fallback', reason: row.error ?? 'the rental failed' };
  const client = rentalProvider(ctx.settings);
  const fail = async (error: string): Promise<RentalStep> => {
    // Recorded, so the attempt never orders later (a crash must not make it order after falling back).
    await ctx.prisma.energyRental.upsert({
      where: { outTradeNo: key },
      create: { paymentId: p.id, purpose, attempt, outTradeNo: key, receiveAddress: address, energyAmount: orderEnergy(ctx.settings, need), period: ctx.settings.ENERGY_RENTAL_PERIOD, state: 'FAILED', error },
      update: { state: 'FAILED', error },
    });
    console.error(`ALERT payment ${p.id}: energy rental ${key} failed: ${error}; the send burns within ENERGY_MAX_BURN_TRX or waits`);
    return { state: 'fallback', reason: error };
  };
  if (!row) {
    // Energy already there (rented earlier and not yet used): nothing to order.
    if ((await energyAvailable(ctx, address)) >= need) return { state: 'ready' };
    if (!client) return fail('no energy rental provider is configured');
    const energy = orderEnergy(ctx.settings, need);
    let quote: bigint;
    try {
      quote = await client.quote(energy);
    } catch (err) {
      if (!isRentalError(err)) throw err;
      return fail(`the energy rental provider is unavailable (${err.message})`);
    }
    if (quote > parseScaled(ctx.settings.ENERGY_RENTAL_MAX_TRX, TOKEN_DECIMALS)) return fail(`renting it would cost ${toTrx(quote)} TRX, above ENERGY_RENTAL_MAX_TRX (${ctx.settings.ENERGY_RENTAL_MAX_TRX})`);
    try {
      row = await ctx.prisma.energyRental.create({ data: { paymentId: p.id, purpose, attempt, outTradeNo: key, receiveAddress: address, energyAmount: energy, period: ctx.settings.ENERGY_RENTAL_PERIOD, state: 'ORDERING' } });
    } catch (err) {
      if ((err as { code?: string }).code === 'P2002') return { state: 'waiting', reason: 'waiting for energy: another worker orders it' };
      throw err;
    }
  }
  const waitMs = ctx.settings.ENERGY_RENTAL_WAIT_SECONDS * 1000;
  // The attempt may burn instead only while its send is not built: once built it may be out (a dead worker's broadcast).
  const mayFallBack = async () => (await ctx.prisma.transaction.count({ where: { sourceId: p.id, sendPurpose: purpose, sendAttempt: attempt } })) === 0 && (await burnAllowed());
  const abandon = async (current: EnergyRental, reason: string): Promise<RentalStep> => {
    await ctx.prisma.energyRental.updateMany({ where: { id: current.id, state: current.state }, data: { state: 'ABANDONED', error: reason } });
    console.error(`ALERT payment ${p.id}: energy rental ${key} abandoned: ${reason}; the send burns instead`);
    return { state: 'fallback', reason };
  };
  if (row.state === 'ORDERING') {
    if (!client) return { state: 'waiting', reason: `waiting for energy: rental order ${key} was placed, but ENERGY_RENTAL_URL is no longer set` };
    try {
      const order = await client.order(address, row.energyAmount, key);
      const ordered = row;
      row = await ctx.prisma.$transaction(async (tx) => {
        const { count } = await tx.energyRental.updateMany({ where: { id: ordered.id, state: 'ORDERING' }, data: { state: 'ORDERED', serial: order.serial, priceSun: order.priceSun, orderedAt: new Date(), error: null } });
        if (count === 1) await bookRental(tx, p, { outTradeNo: key, serial: order.serial, priceSun: order.priceSun, energyAmount: ordered.energyAmount });
        return tx.energyRental.findUniqueOrThrow({ where: { id: ordered.id } });
      });
      console.log(`payment ${p.id}: rented ${row.energyAmount} energy for ${address} (order ${order.serial}, ${toTrx(order.priceSun)} TRX; ${toTrx(order.providerBalanceSun)} TRX left at the provider)`);
    } catch (err) {
      if (err instanceof RentalRefused) return fail(`the energy rental provider refused the order (${err.message})`);
      if (!(err instanceof RentalUnavailable)) throw err;
      // Whether the provider placed it is unknown: asked again with the same out_trade_no, until the wait is over.
      const reason = `waiting for energy: the rental provider did not answer order ${key} (${err.message}); asked again`;
      if (Date.now() - row.createdAt.getTime() > waitMs && (await mayFallBack())) return abandon(row, `the rental provider did not answer order ${key} in ${ctx.settings.ENERGY_RENTAL_WAIT_SECONDS} s (${err.message})`);
      return { state: 'waiting', reason };
    }
  }
  // ORDERED or FILLED: the chain decides.
  const have = await energyAvailable(ctx, address);
  if (have >= need) {
    if (row.state === 'ORDERED') await ctx.prisma.energyRental.updateMany({ where: { id: row.id, state: 'ORDERED' }, data: { state: 'FILLED' } });
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
  if (Date.now() - (row.orderedAt ?? row.createdAt).getTime() > waitMs && (await mayFallBack())) return abandon(row, `${reason.replace('waiting for energy: ', '')}, after ${ctx.settings.ENERGY_RENTAL_WAIT_SECONDS} s`);
  return { state: 'waiting', reason };
}
