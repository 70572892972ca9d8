import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { tronAddressProblem } from '@/lib/schemas/tronAddress';
import { chain } from '@/lib/chain';
import type { Chain } from '@/lib/chain/types';
import { refuseContractTargets, refuseFrozenTargets } from '@/lib/rules/receivers';
import type { TransferCost } from '@/lib/chain/types';
import type { Invoice, PayoutReturn, Prisma, PrismaClient, Transaction } from '@/lib/generated/prisma/client';
import { energyShort, energySourceFor, noteWaiting } from '@/lib/energy/engine';
import { carryOut, feeLimitSun, planSend, sendPlanCost, type SendPlan } from '@/lib/energy/plan';
import { invoiceAccount } from '@/lib/merchants/accounts';
import { toJsonNumber } from '@/lib/money/decimal';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { trxNotGas } from '@/lib/sends/gas';
import { ensureSend, feeLimitOf, latestSend, type SendOutcome, type SendStep } from '@/lib/sends/steps';
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
 * A merchant (dashboard) or an operator (`npm run payout:return`) asks for what remains at a
 * payout's address to be returned to `address`. Only the request is written here: the worker,
 * which holds the keys, makes the sends (advanceReturn). Refused while any send of the payout is
 * in flight (a target may still be paid by it), and once a return was asked for.
 */
export async function requestPayoutReturn(prisma: PrismaClient, payoutId: number, address: string, by: AuditBy, merchantId?: number, node: () => Chain = chain): Promise<PayoutReturn> {
  const payout = await prisma.invoice.findFirst({ where: { id: payoutId, type: 'MULTIPLE_TRANSFER', ...(merchantId === undefined ? {} : { merchantId }) }, include: { payoutReturn: true } });
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
  if (!RETURNABLE.includes(payout.status)) throw new PayoutReturnError('NOT_RETURNABLE', `Only a payout that ended in ${RETURNABLE.join(' or ')} can be returned; this one is ${payout.status}.`);
  if (payout.payoutReturn) throw new PayoutReturnError('NOT_RETURNABLE', `A return to ${payout.payoutReturn.address} was already asked for.`);
  const inFlight = await prisma.transaction.count({ where: { invoiceId: payout.id, sendState: { in: [...IN_FLIGHT] } } });
  if (inFlight > 0) throw new PayoutReturnError('NOT_RETURNABLE', 'A send of this payout is in flight; ask again once it is known.');
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
 * Then, in one DB transaction, the unpaid targets become RETURNED through the door and the
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
  if (anchor) {
    const finished = await sendBack(ctx, payout, anchor, to);
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
    const returned = await tx.transaction.aggregate({ where: { invoiceId: id, sendPurpose: 'PAYOUT_RETURN', sendState: 'CONFIRMED', currency: due.currency }, _sum: { amountUnits: true } });
    const kept = due.receivedUnits - due.forwardedUnits - (returned._sum.amountUnits ?? 0n);
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

async function sendBack(ctx: WorkerContext, payout: Invoice, anchor: Transaction, to: string): Promise<boolean | 'exhausted' | 'refused'> {
  const { address, privateKey } = invoiceAccount(payout);
  // `to`: a return refused for good ends only for that address; one asked for again elsewhere is made (issue 34).
  const step = (purpose: SendStep['purpose']): SendStep => ({ purpose, address, to });
  const sendTrx = (purpose: 'PAYOUT_RETURN' | 'PAYOUT_RETURN_TRX') =>
    ensureSend(ctx, anchor, step(purpose), async (refBlock) => {
      const have = await trxNotGas(ctx, address);
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
    const trx = await sendTrx('PAYOUT_RETURN');
    return alert(trx) ? ended(trx) : done(trx);
  }
  const usdt = await usdtHeld(ctx, address);
  const latest = await latestSend(ctx, anchor.id, step('PAYOUT_RETURN'));
  if (latest || usdt > 0n) {
    let estimated: Promise<TransferCost> | undefined;
    const estimate = () => (estimated ??= ctx.chain.estimateTransfer({ token: 'USDT', from: address, to, amount: usdt > 0n ? usdt : latest!.amountUnits }));
    // Energy for the attempt to build (or the stored one not yet out), from the pool, rented or burned:
    // keyed by the attempt it pays for, as a forward's, so an attempt that failed on chain gets fresh energy, a live one none.
    let plan: SendPlan = { source: latest?.energySource ?? 'BURN', feeLimit: 'BURN', needs: [] };
    if (!latest || latest.sendState === 'FAILED' || latest.sendState === 'SIGNED') {
      const signedLimit = latest?.sendState === 'SIGNED' ? feeLimitOf(latest) : null;
      const attempt = latest?.sendState === 'SIGNED' ? (latest.sendAttempt ?? 1) : (latest?.sendAttempt ?? 0) + 1;
      const ready = await returnPlan(ctx, payout, anchor, attempt, address, estimate, signedLimit);
      if (!('needs' in ready)) return alert(ready) ? ended(ready) : false;
      plan = ready;
    }
    const sent = await ensureSend(
      ctx,
      anchor,
      step('PAYOUT_RETURN'),
      async (refBlock) => {
        const units = await usdtHeld(ctx, address);
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
  const trx = await sendTrx('PAYOUT_RETURN_TRX');
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
  const choice = await energySourceFor(ctx, anchor, 'PAYOUT_RETURN', attempt, address, estimate, null);
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
