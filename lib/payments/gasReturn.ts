import { sql } from '@/lib/db/sql';
import { workThrough } from '@/lib/worker/lease';
import type { WorkerContext } from '@/lib/worker/context';
import { spendableTrx } from '@/lib/sends/gas';
import { ensureSend } from '@/lib/sends/steps';
import { OPEN_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import { type Payment, invoiceKey, loadPayment, toDecimal } from './payment';

/**
 * Returns the unburned gas TRX (the FORWARD_GAS/REFUND_GAS margin) of a SINGLE invoice's
 * address to the gas wallet once its payment is closed (settled, refunded, failed or held), so
 * ~3 TRX per USDT payment, or the whole gas of a send that failed or was not made, is not
 * stranded at an address that is never used again (issue 13, case 4; issue 22, case 6;
 * docs/worker.md, "Gas returned"). Only the ledger's gas remainder is sent (never a customer's
 * TRX, a fee kept or held funds), only while no other payment's funds wait at the address and
 * nothing of ours is in flight from or to it, and only when the send burns less than it
 * returns. A payment that arrives later gets new gas as any other.
 */
async function returnGas(ctx: WorkerContext, p: Payment): Promise<void> {
  const { address, privateKey } = invoiceKey(p);
  // Another payment's funds are waiting here: its send may use this gas; it is returned when that payment is booked.
  const waitingHere = () => ctx.prisma.transaction.count({ where: { toAddress: address, type: 'PAYMENT', paymentState: { in: [...OPEN_PAYMENT_STATES] }, id: { not: p.id } } });
  // A return already out is followed to its end whatever arrived since: until it lands or is proven dead,
  // nothing else can go from the address (one send in flight from an address), so a payment that came
  // while it was out would wait for it for ever (found by settlement's cases 2 and 7 under load).
  const out = await ctx.prisma.transaction.count({ where: { sourceId: p.id, sendPurpose: 'GAS_RETURN', sendState: { in: ['SIGNED', 'BROADCAST'] } } });
  if (out === 0) {
    if ((await waitingHere()) > 0) return;
    // Its own gas or send still in flight: returned once that lands or is proven dead (the ledger then says what is left).
    const inFlight = await ctx.prisma.transaction.count({ where: { sourceId: p.id, sendState: { in: ['SIGNED', 'BROADCAST'] }, sendPurpose: { not: 'GAS_RETURN' } } });
    if (inFlight > 0) return;
  }
  // One return per time the payment is closed: a FAILED payment retried by an operator and then
  // settled has gas to return again. Counting the confirmed ones keeps a crash between a return
  // confirming and the flag cleared harmless: the next one finds nothing left to return.
  const returned = await ctx.prisma.transaction.count({ where: { sourceId: p.id, sendPurpose: 'GAS_RETURN', sendState: 'CONFIRMED' } });
  const to = ctx.gasWallet.address;
  const outcome = await ensureSend(ctx, p, { purpose: 'GAS_RETURN', address, ...(returned > 0 && { index: returned }) }, async (refBlock) => {
    // The return that was out proved dead while a payment waits here: nothing new until that payment is booked.
    if ((await waitingHere()) > 0) return null;
    // The gas there and nothing else (lib/sends/gas.ts): never a customer's TRX, a fee kept or held funds.
    const remainder = await spendableTrx(ctx, address);
    if (remainder <= 0n) return null;
    // From an activated address a TRX send uses its free daily bandwidth when it has some (then it burns nothing).
    const cost = await ctx.chain.estimateTransfer({ token: 'TRX', from: address, to, amount: remainder });
    const amount = remainder - cost.totalFeeSun;
    if (amount <= cost.totalFeeSun) {
      // Info, not a warning: the right call, nothing for an operator to do (the books keep it as the address's gas). With the
      // pool it is every USDT invoice's 1 sun of activation, and a warning on each taught operators to overlook warnings.
      console.log(`payment ${p.id}: gas remainder of ${toDecimal(remainder)} TRX kept at ${address}: returning it would burn ${toDecimal(cost.totalFeeSun)} TRX`);
      return null;
    }
    return { type: 'ACTIVATION', from: address, to, amountUnits: amount, currency: 'TRX', costPayer: 'SERVICE', signed: await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount, refBlock) };
  });
  if (outcome.state === 'pending') return;
  // Kept due: returned once the payment waiting here is booked.
  if (outcome.state === 'skipped' && (await waitingHere()) > 0) return;
  if (outcome.state === 'exhausted') console.error(`ALERT payment ${p.id}: gas remainder at ${address} not returned: ${outcome.error}`);
  await ctx.prisma.transaction.updateMany({ where: { id: p.id, leaseOwner: ctx.owner }, data: { gasReturnDue: false } });
}

const GAS_RETURN_DUE = sql`gas_return_due AND NOT (payment_state = ANY(${[...OPEN_PAYMENT_STATES]}::"PaymentState"[]))`;

/**
 * The gas returns job (worker/gasReturns.ts): closed payments of single-use addresses flagged by
 * the payment door (`gas_return_due`), each claimed with the one lease helper and its gas
 * remainder sent back (returnGas). A node or database error is retried with backoff.
 */
export async function processGasReturns(ctx: WorkerContext, max = 50): Promise<number> {
  return workThrough(ctx, 'transactions', GAS_RETURN_DUE, max, async (id) => {
    try {
      await returnGas(ctx, await loadPayment(ctx, id));
    } catch (err) {
      console.error(`gas return of payment ${id}: ${(err as Error).message.slice(0, 500)}`);
      return Math.min(ctx.settings.WORKER_POLL_MS * 10, 60_000);
    }
  });
}
