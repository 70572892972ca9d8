import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { tronAddressProblem } from '@/lib/schemas/tronAddress';
import { chain } from '@/lib/chain';
import type { Chain } from '@/lib/chain/types';
import { refuseContractTargets, refuseFrozenTargets } from '@/lib/rules/receivers';
import type { TransferCost } from '@/lib/chain/types';
import type { Invoice, InvoiceCurrency, InvoiceStatus, PayoutReturn, Prisma, PrismaClient, Transaction } from '@/lib/generated/prisma/client';
import { energyShort, energySourceFor, noteWaiting, sendReads } from '@/lib/energy/engine';
import { carryOut, feeLimitSun, planSend, sendPlanCost, type SendPlan } from '@/lib/energy/plan';
import { invoiceAccount } from '@/lib/merchants/accounts';
import { toJsonNumber } from '@/lib/money/decimal';
import { TOKEN_DECIMALS, tokenAmountJson, type Currency } from '@/lib/money/tokens';
import { config } from '@/lib/config';
import { gasInUsdt, rateSource, type RateSource } from '@/lib/rates';
import { confirmedTopUpUnits } from '@/lib/invoices/topUps';
import type { WorkerContext } from '@/lib/worker/context';
import { trxNotGas } from '@/lib/sends/gas';
import { ensureSend, feeLimitOf, followKeptBack, latestSend, type SendOutcome, type SendStep } from '@/lib/sends/steps';
import { loadPayout } from './load';
import { changeTargetState, RETURNABLE, UNPAID_TARGET_STATES } from './targets';

const toDecimal = (units: bigint) => String(toJsonNumber(units, TOKEN_DECIMALS));

/** Why a return was refused; the edges (dashboard route, operator command) map the code. */
export class PayoutReturnError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'BAD_ADDRESS' | 'NOT_RETURNABLE',
    message: string,
  ) {
    super(message);
  }
}

const IN_FLIGHT = ['SIGNED', 'BROADCAST'] as const;

/**
 * What a return can be asked for in: a payout that cannot finish (all that remains goes back), or
 * one that COMPLETED with more at its address than it needed (only that excess goes back).
 */
export const RETURN_STATUSES: readonly InvoiceStatus[] = [...RETURNABLE, 'COMPLETED'];

type PayoutAmounts = Pick<Invoice, 'id' | 'currencies'> & { amounts: Pick<InvoiceCurrency, 'currency' | 'dueUnits'>[] };

/**
 * The excess of a COMPLETED payout (docs/payouts.md, "Returning the excess"): the top-ups recorded
 * in its token beyond its quoted top-up (`due`: the targets' amounts and the quoted fee, which
 * the service keeps). It is the merchant's, never the fee's, never a target's. None once a return
 * of it went out (a confirmed PAYOUT_RETURN): asked for again elsewhere (a withdrawn return), it
 * is never sent twice.
 */
export async function payoutExcessUnits(db: Pick<PrismaClient, 'transaction'>, payout: PayoutAmounts): Promise<bigint> {
  const due = payout.amounts[0];
  if (!due) return 0n;
  const [topUps, sentBack] = await Promise.all([
    confirmedTopUpUnits(db, payout.id, due.currency as Currency),
    db.transaction.count({ where: { invoiceId: payout.id, sendPurpose: 'PAYOUT_RETURN', sendState: 'CONFIRMED' } }),
  ]);
  if (sentBack > 0) return 0n;
  return topUps > due.dueUnits ? topUps - due.dueUnits : 0n;
}

/**
 * What a COMPLETED USDT payout's return deducts from the excess for its network cost: the burn
 * estimate with GAS_MARGIN_PERCENT, at today's rates, as a USDT refund of a payment deducts its
 * gas (lib/payments/refund.ts). The service pays the energy in TRX (gas, the pool or a rental) and
 * keeps this USDT at the payout's address for it; the payout's `cost` counts it.
 */
export async function usdtReturnCostUnits(burnSun: bigint, marginPercent: string, rates: RateSource): Promise<bigint> {
  return (await gasInUsdt(rates, burnSun, marginPercent)).units;
}

/**
 * A COMPLETED payout's return is asked for only when it would bring something back: the excess
 * (never more than the address holds, beside gas for TRX) must pay its own send's network cost,
 * or, for a USDT payout, TRX sent there by mistake must pay its own; else the return would only
 * burn the merchant's money (400, saying so).
 */
async function refuseNothingToReturn(prisma: PrismaClient, payout: Invoice & { amounts: InvoiceCurrency[] }, to: string, node: Chain, rates: RateSource): Promise<void> {
  const currency = payout.currencies[0] ?? 'TRX';
  const excess = await payoutExcessUnits(prisma, payout);
  const trxHeld = await trxNotGas({ prisma, chain: node }, payout.address);
  const trxCost = async (have: bigint) => (have > 0n ? (await node.estimateTransfer({ token: 'TRX', from: payout.address, to, amount: have })).totalFeeSun : 0n);
  let have = 0n;
  let cost = 0n;
  if (currency === 'TRX') {
    have = excess < trxHeld ? excess : trxHeld;
    cost = await trxCost(have);
  } else {
    const usdtHeldUnits = await node.getUsdtBalance(payout.address);
    have = excess < usdtHeldUnits ? excess : usdtHeldUnits;
    cost = have > 0n ? await usdtReturnCostUnits((await node.estimateTransfer({ token: 'USDT', from: payout.address, to, amount: have })).totalFeeSun, config().GAS_MARGIN_PERCENT, rates) : 0n;
    // TRX sent to a USDT payout by mistake is the merchant's too, and goes back whole (less its cost).
    if (!(have > cost) && trxHeld > (await trxCost(trxHeld))) return;
  }
  if (excess <= 0n) throw new PayoutReturnError('NOT_RETURNABLE', `Nothing to return: this payout received no more than its top-up of ${toDecimal(payout.amounts[0]?.dueUnits ?? 0n)} ${currency}, and what remains at its address is its fee.`);
  if (have <= cost) {
    throw new PayoutReturnError('NOT_RETURNABLE', `Nothing to return: the ${toDecimal(have)} ${currency} that arrived beyond this payout's top-up would not pay the ${toDecimal(cost)} ${currency} network cost of sending it back.`);
  }
}

/**
 * A merchant (dashboard) or an operator (`npm run payout:return`) asks for what remains at a
 * payout's address to be returned to `address`. Only the request is written here: the worker,
 * which holds the keys, makes the sends (advanceReturn). Refused while any send of the payout is
 * in flight (a target may still be paid by it), and once a return was asked for.
 */
export async function requestPayoutReturn(prisma: PrismaClient, payoutId: number, address: string, by: AuditBy, merchantId?: number, node: () => Chain = chain, rates: () => RateSource = rateSource): Promise<PayoutReturn> {
  const payout = await prisma.invoice.findFirst({ where: { id: payoutId, type: 'MULTIPLE_TRANSFER', ...(merchantId === undefined ? {} : { merchantId }) }, include: { payoutReturn: true, amounts: true } });
  // Every payout is a merchant's (payoutData): one without is no payout anyone can ask to return.
  if (!payout || payout.merchantId === null) throw new PayoutReturnError('NOT_FOUND', `Payout ${payoutId} not found.`);
  const owner = payout.merchantId;
  const problem = tronAddressProblem(address);
  if (problem) throw new PayoutReturnError('BAD_ADDRESS', problem);
  if (address === payout.address) throw new PayoutReturnError('BAD_ADDRESS', "That is the payout's own top-up address.");
  // Everything left at the address goes there: never to a smart contract (issue 34; 503 when the node cannot tell).
  await refuseContractTargets(node(), { address });
  // Nor USDT to an address the USDT contract has frozen: it could never be moved from there (issue 37).
  if (payout.currencies.includes('USDT')) await refuseFrozenTargets(node(), { address });
  if (!RETURN_STATUSES.includes(payout.status)) {
    throw new PayoutReturnError('NOT_RETURNABLE', `Only a payout that ended in ${RETURNABLE.join(' or ')}, or the excess of a COMPLETED one, can be returned; this one is ${payout.status}.`);
  }
  if (payout.payoutReturn) throw new PayoutReturnError('NOT_RETURNABLE', `A return to ${payout.payoutReturn.address} was already asked for.`);
  const inFlight = await prisma.transaction.count({ where: { invoiceId: payout.id, sendState: { in: [...IN_FLIGHT] } } });
  if (inFlight > 0) throw new PayoutReturnError('NOT_RETURNABLE', 'A send of this payout is in flight; ask again once it is known.');
  if (payout.status === 'COMPLETED') await refuseNothingToReturn(prisma, payout, address, node(), rates());
  try {
    // The payout's status is final (ERROR and TIMEOUT lead nowhere), so the check above still holds.
    // The request and its audit row (who asked for the money to go where) commit together.
    return await prisma.$transaction(async (tx) => {
      const request = await tx.payoutReturn.create({ data: { invoiceId: payout.id, address } });
      await recordAudit(tx, by, { merchantId: owner, action: 'payout_returned', subject: payout.id, before: { status: payout.status }, after: { return_address: address } });
      return request;
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'P2002') throw new PayoutReturnError('NOT_RETURNABLE', 'A return was already asked for.');
    throw err;
  }
}

const done = (o: SendOutcome) => o.state === 'confirmed' || o.state === 'skipped';

/**
 * The worker's side of a return (docs/payouts.md, "Returning a payout"). Every send is built,
 * signed and stored before broadcast (ensureSend), anchored on the payout's first top-up:
 * 1. the payout's token: a TRX payout's whole TRX balance less the send's cost; a USDT payout's
 *    USDT, its energy lent by the pool, rented or burned as for a forward (returnEnergy below);
 * 2. a USDT payout's TRX that is not gas (the merchant's, sent there by mistake) less its cost.
 * A COMPLETED payout's token goes back only up to its excess (payoutExcessUnits), less the send's
 * network cost (for USDT, usdtReturnCostUnits): its fee stays. Then, in one DB transaction, the unpaid targets become RETURNED through the door and the
 * return is closed (`returned_at`). Nothing starts while any send of the payout is in flight. A
 * remainder too small to pay its own send stays at the address, logged.
 */
export async function advanceReturn(ctx: WorkerContext, id: number): Promise<number | void> {
  const payout = await loadPayout(ctx, id);
  const request = await ctx.prisma.payoutReturn.findUnique({ where: { invoiceId: id } });
  if (!request || request.returnedAt) return;
  const to = request.address;
  const returnPurposes = ['PAYOUT_RETURN', 'PAYOUT_RETURN_TRX', 'PAYOUT_RETURN_GAS', 'PAYOUT_RETURN_ENERGY'] as const;
  const targetInFlight = await ctx.prisma.transaction.count({ where: { invoiceId: id, sendState: { in: [...IN_FLIGHT] }, NOT: { sendPurpose: { in: [...returnPurposes] } } } });
  if (targetInFlight > 0) return;
  // The payout's own anchor (its first top-up in its token), else the first top-up of any token.
  const first = (where: Prisma.TransactionWhereInput) => ctx.prisma.transaction.findFirst({ where: { invoiceId: id, type: 'TOPUP', ...where }, orderBy: { id: 'asc' } });
  const anchor = (await first({ currency: payout.currencies[0] })) ?? (await first({}));
  // Asked for before returns to a smart contract were refused (issue 34): USDT sent there would be lost. Withdrawn before anything is sent.
  const started = anchor ? await ctx.prisma.transaction.count({ where: { invoiceId: id, sendPurpose: { in: [...returnPurposes] }, toAddress: to } }) : 0;
  if (anchor && started === 0 && (await ctx.chain.isContract(to))) return withdrawReturn(ctx, id, to, 'is a smart contract, which cannot receive it');
  // A COMPLETED payout sends back only its excess: its fee stays (docs/payouts.md, "Returning the excess").
  const completed = payout.status === 'COMPLETED';
  if (anchor) {
    const finished = await sendBack(ctx, payout, anchor, to, completed ? await payoutExcessUnits(ctx.prisma, payout) : null);
    if (finished === 'refused') return withdrawReturn(ctx, id, to, 'was refused for good by the node');
    if (finished === 'exhausted') return ctx.settings.SEND_RETRY_MAX_MS;
    if (!finished) return;
  }
  await ctx.prisma.$transaction(async (tx) => {
    const claimed = await tx.invoice.count({ where: { id, leaseOwner: ctx.owner } });
    const { count } = claimed === 1 ? await tx.payoutReturn.updateMany({ where: { invoiceId: id, returnedAt: null }, data: { returnedAt: new Date() } }) : { count: 0 };
    if (count !== 1) return;
    for (const t of payout.payoutTargets) if (UNPAID_TARGET_STATES.includes(t.state)) await changeTargetState(tx, t, 'RETURNED');
    // The payout's cost is now what the merchant was really charged: the top-up less what reached the
    // targets and what came back (the quoted fee went back with the rest), so it is never reported
    // as kept while it was returned (reconcile proves it: lib/reconcile/reconcileInvoices.ts).
    const due = payout.amounts[0];
    if (!due) return;
    // A COMPLETED payout's input was booked when it ended: a top-up after that (the excess sent late) is counted now, as it went back with the rest.
    const received = completed ? await confirmedTopUpUnits(tx, id, due.currency as Currency) : due.receivedUnits;
    if (received !== due.receivedUnits) await tx.invoiceCurrency.update({ where: { invoiceId_currency: { invoiceId: id, currency: due.currency } }, data: { receivedUnits: received } });
    const returned = await tx.transaction.aggregate({ where: { invoiceId: id, sendPurpose: 'PAYOUT_RETURN', sendState: 'CONFIRMED', currency: due.currency }, _sum: { amountUnits: true } });
    const kept = received - due.forwardedUnits - (returned._sum.amountUnits ?? 0n);
    await tx.invoice.update({ where: { id }, data: { costUnits: kept > 0n ? kept : 0n, costCurrency: due.currency } });
  });
}

/**
 * A return that can never be made to its address (issue 34): the address is a smart contract (asked
 * for before the dashboard refused them), or the node refused a return send for good (that send's
 * refusal was the one ALERT). The request is withdrawn, so the merchant (or an operator) can ask
 * again for another address; what remains stays at the payout address, and what was already
 * returned counts as returned (its sends are confirmed, and a new request finds them done).
 */
async function withdrawReturn(ctx: WorkerContext, id: number, to: string, why: string): Promise<void> {
  const { count } = await ctx.prisma.payoutReturn.deleteMany({ where: { invoiceId: id, returnedAt: null, invoice: { leaseOwner: ctx.owner } } });
  if (count === 1) console.warn(`payout ${id}: the return to ${to} ${why}; the request is withdrawn, the rest stays at the payout address until a return to another address is asked for`);
}

/** `cap`: a COMPLETED payout's excess, the most its token's return may carry, its own network cost included; null: all that remains. */
async function sendBack(ctx: WorkerContext, payout: Invoice, anchor: Transaction, to: string, cap: bigint | null): Promise<boolean | 'exhausted' | 'refused'> {
  const { address, privateKey } = invoiceAccount(payout);
  // `to`: a return refused for good ends only for that address; one asked for again elsewhere is made (issue 34).
  const step = (purpose: SendStep['purpose']): SendStep => ({ purpose, address, to });
  const sendTrx = (purpose: 'PAYOUT_RETURN' | 'PAYOUT_RETURN_TRX', most: bigint | null) =>
    ensureSend(ctx, anchor, step(purpose), async (refBlock) => {
      const held = await trxNotGas(ctx, address);
      const have = most !== null && most < held ? most : held;
      if (have <= 0n) return null;
      const cost = await ctx.chain.estimateTransfer({ token: 'TRX', from: address, to, amount: have });
      const amount = have - cost.totalFeeSun;
      if (amount <= 0n) {
        console.warn(`payout ${payout.id}: ${toDecimal(have)} TRX kept at ${address}: returning it would burn ${toDecimal(cost.totalFeeSun)} TRX`);
        return null;
      }
      return { type: 'TRANSFER', from: address, to, amountUnits: amount, currency: 'TRX', costPayer: 'PAYOUT', signed: await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount, refBlock) };
    });
  const alert = (o: SendOutcome) => {
    if (o.state === 'exhausted' && !o.refused) console.error(`ALERT payout ${payout.id}: return to ${to} not sent: ${o.error}`);
    return o.state === 'exhausted';
  };
  const ended = (o: SendOutcome) => (o.state === 'exhausted' && o.refused ? 'refused' : 'exhausted');

  if (payout.currencies[0] === 'TRX') {
    const trx = await sendTrx('PAYOUT_RETURN', cap);
    return alert(trx) ? ended(trx) : done(trx);
  }
  const held = await usdtHeld(ctx, address);
  const usdt = cap !== null && cap < held ? cap : held;
  const latest = await latestSend(ctx, anchor.id, step('PAYOUT_RETURN'));
  let estimated: Promise<TransferCost> | undefined;
  const estimate = () => (estimated ??= ctx.chain.estimateTransfer({ token: 'USDT', from: address, to, amount: usdt > 0n ? usdt : latest!.amountUnits }));
  // A COMPLETED payout's excess pays its own return's network cost (usdtReturnCostUnits); the rest of a payout that cannot finish goes back whole.
  let deducted: Promise<bigint> | undefined;
  const deduction = () => (cap === null ? Promise.resolve(0n) : (deducted ??= estimate().then((c) => usdtReturnCostUnits(c.totalFeeSun, ctx.settings.GAS_MARGIN_PERCENT, ctx.rates))));
  // An excess that would not pay for its return is not sent, and no energy is bought for it.
  const worth = usdt > 0n && usdt > (await deduction());
  if (!latest && usdt > 0n && !worth) console.warn(`payout ${payout.id}: ${toDecimal(usdt)} USDT kept at ${address}: returning it would cost ${toDecimal(await deduction())} USDT`);
  if (latest || worth) {
    // Energy for the attempt to build (or the stored one not yet out), from the pool, rented or burned:
    // keyed by the attempt it pays for, as a forward's, so an attempt that failed on chain gets fresh energy, a live one none.
    let plan: SendPlan = { source: latest?.energySource ?? 'BURN', feeLimit: 'BURN', needs: [] };
    if (!latest || latest.sendState === 'FAILED' || latest.sendState === 'SIGNED') {
      const signedLimit = latest?.sendState === 'SIGNED' ? feeLimitOf(latest) : null;
      const attempt = latest?.sendState === 'SIGNED' ? (latest.sendAttempt ?? 1) : (latest?.sendAttempt ?? 0) + 1;
      const ready = await returnPlan(ctx, payout, anchor, attempt, address, estimate, signedLimit);
      if (!('needs' in ready)) {
        // A stored return whose plan waits is followed, kept back, to its death (as a forward's: lib/sends/steps.ts, followKeptBack).
        if (latest?.sendState === 'SIGNED' && ready.state === 'pending') await followKeptBack(ctx, anchor, latest);
        return alert(ready) ? ended(ready) : false;
      }
      plan = ready;
    }
    const sent = await ensureSend(
      ctx,
      anchor,
      step('PAYOUT_RETURN'),
      async (refBlock) => {
        const now = await usdtHeld(ctx, address);
        const units = (cap !== null && cap < now ? cap : now) - (await deduction());
        if (units <= 0n) return null;
        const cost = await estimate();
        // Lent or rented energy: the fee_limit pays for the energy lent (lib/energy/engine.ts, energyShort), so it burns no TRX.
        const signed = await ctx.chain.buildSignedUsdtTransfer(privateKey, to, units, await feeLimitSun(ctx, plan.feeLimit, cost), refBlock);
        return { type: 'TRANSFER', from: address, to, amountUnits: units, currency: 'USDT', costPayer: 'PAYOUT', signed, energy: { energySource: plan.source, energyUnits: cost.energy } };
      },
      { beforeBroadcast: (row) => (row.energySource === 'POOL' || row.energySource === 'RENTAL' ? energyShort(ctx, row) : Promise.resolve(null)) },
    );
    if (alert(sent)) return ended(sent);
    if (!done(sent)) return false;
  }
  // The merchant's own TRX at a USDT payout's address (a top-up in the wrong token) goes back too; the gas stays.
  const trx = await sendTrx('PAYOUT_RETURN_TRX', null);
  return alert(trx) ? ended(trx) : done(trx);
}

/**
 * The plan of one attempt of a USDT payout's return (docs/energy.md, "Payouts"; lib/energy/plan.ts),
 * its source chosen as for a forward (lib/energy/engine.ts) and kept for the attempt: the pool lends
 * the return's energy (PAYOUT_RETURN_ENERGY, index = the attempt), or it is rented (energy_rentals,
 * purpose PAYOUT_RETURN), or burned as before with gas from the gas wallet (PAYOUT_RETURN_GAS),
 * within ENERGY_MAX_BURN_TRX; else the return waits, visibly (on the payout's first top-up). The
 * service pays a return's network cost (it kept the payout's quoted fee); with lent energy, only the
 * bytes beyond the address's free bandwidth are burned, from gas. Carried out here; the plan, once
 * every need is done.
 */
async function returnPlan(
  ctx: WorkerContext,
  payout: Invoice,
  anchor: Transaction,
  attempt: number,
  address: string,
  estimate: () => Promise<TransferCost>,
  signedLimit: bigint | null,
): Promise<SendPlan | SendOutcome> {
  const what = `payout ${payout.id} (return)`;
  const choice = await energySourceFor(ctx, anchor, 'PAYOUT_RETURN', attempt, address, sendReads(ctx, address, estimate), null);
  if (choice.source === 'WAIT' || choice.source === 'HOLD') {
    await noteWaiting(ctx, anchor, choice.source === 'WAIT' ? choice.reason : 'waiting for energy', what);
    return { state: 'pending' };
  }
  const plan = await planSend(ctx, anchor.id, choice.source, {
    address,
    gas: { purpose: 'PAYOUT_RETURN_GAS', index: attempt, address },
    energy: { purpose: 'PAYOUT_RETURN_ENERGY', index: attempt },
    bandwidth: null,
    rental: { purpose: 'PAYOUT_RETURN', attempt },
    landed: false,
    burnTopUp: false,
    signedFeeLimitSun: signedLimit,
  });
  return (await carryOut(ctx, anchor, plan, address, async () => sendPlanCost(await estimate()), 'PAYOUT', what)) ?? plan;
}

/** USDT at the address: the smaller of what the chain and the ledger say. */
async function usdtHeld(ctx: WorkerContext, address: string): Promise<bigint> {
  const [chainUnits, ledger] = await Promise.all([ctx.chain.getUsdtBalance(address), ctx.prisma.ledgerEntry.aggregate({ where: { address, currency: 'USDT' }, _sum: { deltaUnits: true } })]);
  const booked = ledger._sum.deltaUnits ?? 0n;
  return chainUnits < booked ? chainUnits : booked;
}

/** The dashboard's view of what a payout can give back (docs/dashboard.md, the payout's page). */
export interface PayoutReturnJson {
  currency: string;
  /** A COMPLETED payout's excess still at its address, in its token; 0 otherwise. */
  excess: number;
  /** Whether a return can be asked for now (its status allows one, none was asked for, and a COMPLETED one has an excess). */
  returnable: boolean;
  /** The return asked for, if any. */
  return: { address: string; requested_at: string; returned_at: string | null } | null;
}

/** What a payout's page shows of its return, from the books (no chain read: the page polls). Null for an invoice that is no payout. */
export async function payoutReturnJson(prisma: PrismaClient, invoiceId: number): Promise<PayoutReturnJson | null> {
  const payout = await prisma.invoice.findUnique({ where: { id: invoiceId }, include: { amounts: true, payoutReturn: true } });
  if (!payout || payout.type !== 'MULTIPLE_TRANSFER') return null;
  const excess = payout.status === 'COMPLETED' ? await payoutExcessUnits(prisma, payout) : 0n;
  const r = payout.payoutReturn;
  return {
    currency: payout.currencies[0] ?? '',
    excess: tokenAmountJson(excess),
    returnable: RETURN_STATUSES.includes(payout.status) && !r && (payout.status !== 'COMPLETED' || excess > 0n),
    return: r ? { address: r.address, requested_at: r.requestedAt.toISOString(), returned_at: r.returnedAt?.toISOString() ?? null } : null,
  };
}
