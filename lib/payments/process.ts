import { runAmlCheck } from '@/lib/aml/check';
import { ChainResponseError } from '@/lib/chain/errors';
import { invoiceAccount } from '@/lib/merchants/accounts';
import type { TransferCost } from '@/lib/chain/types';
import { changeMerchantBalance } from '@/lib/merchants/balance';
import { Prisma, type Invoice, type InvoiceCurrency, type InvoiceStatus, type Merchant, type Transaction } from '@/lib/generated/prisma/client';
import { changeInvoiceStatus } from '@/lib/invoices/transitions';
import { workThrough } from '@/lib/worker/lease';
import { parseScaled, toJsonNumber } from '@/lib/money/decimal';
import { convertUnits, percentOf, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS, TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from './context';
import { scannedUntil } from './scan';
import { ensureGas, spendableTrx } from './gas';
import { ensureSend, exhausted, feeLimitOf, latestSend, nextAttempt, type PlannedSend, type SendOutcome } from './sends';
import { paymentFee, sharePaid, statusAfterPayments } from './settlementRules';
import { changePaymentState, isOpenPaymentState, OPEN_PAYMENT_STATES, type PaymentMove } from './states';

type Payment = Transaction & { invoice: (Invoice & { amounts: InvoiceCurrency[] }) | null; merchant: Merchant };
const DUE = Prisma.sql`payment_state = ANY(${[...OPEN_PAYMENT_STATES]}::"PaymentState"[]) OR gas_return_due`;

/** Works through due payments; each is advanced as far as the chain allows, then released (lib/worker/lease.ts). */
export async function processPayments(ctx: WorkerContext, max = 50): Promise<number> {
  return workThrough(ctx, 'transactions', DUE, max, async (id) => {
    try {
      await advancePayment(ctx, id);
      // HOLD_AFTER_REFUSALS counts refusals in a row: a round the node did not refuse ends the run (issue 22, case 10).
      await ctx.prisma.transaction.updateMany({ where: { id, retries: { gt: 0 } }, data: { retries: 0 } });
    } catch (err) {
      const message = (err as Error).message.slice(0, 500);
      console.error(`payment ${id}: ${message}`);
      // The node answered and refused to plan the send (an estimate that reverts: USDT frozen at the
      // address, a target that cannot receive). Retried, then held with the reason instead of
      // FORWARDING forever (issue 13, case 9). An unreachable node is only ever retried. The door
      // refuses the hold while a send of the payment's own is in flight (issue 22, case 10).
      const refused = err instanceof ChainResponseError;
      const row = await ctx.prisma.transaction.update({ where: { id }, data: { error: message, ...(refused && { retries: { increment: 1 } }) } });
      if (refused && row.retries >= ctx.settings.HOLD_AFTER_REFUSALS && row.leaseOwner === ctx.owner) {
        await hold(ctx, await loadPayment(ctx, id), `cannot be sent: ${message}`);
      }
      return Math.min(ctx.settings.WORKER_POLL_MS * 2 ** Math.min(row.retries, 10), 60_000);
    }
  });
}

const loadPayment = (ctx: WorkerContext, id: number): Promise<Payment> =>
  ctx.prisma.transaction.findUniqueOrThrow({ where: { id }, include: { invoice: { include: { amounts: true } }, merchant: true } });

async function advancePayment(ctx: WorkerContext, id: number): Promise<void> {
  const load = () => loadPayment(ctx, id);
  let p: Payment = await load();
  if (p.type === 'TOPUP') return creditTopup(ctx, p);
  if (p.gasReturnDue && !isOpenPaymentState(p.paymentState)) return returnGas(ctx, p);
  if (p.paymentState === 'DETECTED' && p.invoice) {
    // Policies a merchant expects (docs/worker.md, "Held funds"): money the merchant did not ask
    // for in this form is kept for them to decide, not forwarded unseen or counted wrongly (case 8).
    if (p.invoice.status === 'CANCELED') return hold(ctx, p, 'invoice canceled: the merchant decides whether to forward or return it');
    if (!p.invoice.currencies.includes(p.currency)) return hold(ctx, p, `token not accepted: invoice ${p.invoice.id} accepts ${p.invoice.currencies.join(', ')}, not ${p.currency}`);
  }
  // Dust is held before screening: an AML check and a forward would cost more than it is worth, and a
  // flagged sender's dust must not end an open invoice (issue 13, cases 4 and 6).
  if (p.paymentState === 'DETECTED' && p.amountUnits < dustThreshold(ctx, p.currency as Currency)) {
    return hold(ctx, p, `dust: ${toDecimal(p.amountUnits)} ${p.currency} is below the ${p.currency === 'TRX' ? ctx.settings.DUST_THRESHOLD_TRX : ctx.settings.DUST_THRESHOLD_USDT} ${p.currency} threshold; not screened or forwarded`);
  }
  if (p.paymentState === 'DETECTED' || p.paymentState === 'AML_PENDING') {
    await screen(ctx, p);
    p = await load();
  }
  if (p.paymentState === 'FORWARDING') return forward(ctx, p);
  if (p.paymentState === 'REFUNDING') return refund(ctx, p);
}

const dustThreshold = (ctx: WorkerContext, token: Currency) => parseScaled(token === 'TRX' ? ctx.settings.DUST_THRESHOLD_TRX : ctx.settings.DUST_THRESHOLD_USDT, TOKEN_DECIMALS);
const toDecimal = (units: bigint) => String(toJsonNumber(units, TOKEN_DECIMALS));

/**
 * Keeps a payment at its address, visibly: HELD with its reason on the
 * transaction (API `held`, dashboard), HELD in the ledger, not counted as
 * received until a merchant releases it. Never COMPLETED, never burned.
 */
async function hold(ctx: WorkerContext, p: Payment, reason: string): Promise<void> {
  if (await ctx.prisma.$transaction((tx) => move(tx, ctx, p, { to: 'HELD', reason, data: { heldReason: reason, error: null } }))) console.warn(`payment ${p.id} held: ${reason}`);
}

/**
 * Whether sending this payment on costs more than it is worth (issue 13, cases 3 and 4):
 * the network cost of the forward or refund (for USDT: its gas, at current rates) against
 * what the merchant would receive or the sender get back. Judged once, before anything is
 * sent, gas included (issue 22, case 7); null when it is worth it.
 */
async function uneconomic(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, fee: bigint): Promise<string | null> {
  if (await latestSend(ctx, p.id, { purpose })) return null;
  if (await latestSend(ctx, p.id, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: 1 })) return null;
  const worth = p.amountUnits - fee;
  const cost = await ctx.chain.estimateTransfer({ token: p.currency as Currency, from: invoiceKey(p).address, to, amount: p.amountUnits });
  let costInToken = cost.totalFeeSun;
  if (p.currency === 'USDT') {
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    costInToken = convertUnits(withMargin(cost.totalFeeSun, ctx.settings.GAS_MARGIN_PERCENT), parseScaled(trx.rateUsd, RATE_DECIMALS), parseScaled(usdt.rateUsd, RATE_DECIMALS));
  }
  if (costInToken < worth) return null;
  if (purpose === 'REFUND') return REFUND_NOT_WORTH_IT;
  return `uneconomic: forwarding would cost ${toDecimal(costInToken)} ${p.currency}${p.currency === 'USDT' ? ` (${toDecimal(cost.totalFeeSun)} TRX of network fees)` : ''}, not less than the ${toDecimal(worth)} ${p.currency} it is worth`;
}

/** Moves the payment through the one door (lib/payments/states.ts), only while this worker still holds it. */
function move(tx: Prisma.TransactionClient, ctx: WorkerContext, p: Payment, m: PaymentMove): Promise<boolean> {
  return changePaymentState(tx, p, { ...m, leaseOwner: ctx.owner });
}

async function screen(ctx: WorkerContext, p: Payment): Promise<void> {
  if (!p.merchant.amlCheck) {
    await move(ctx.prisma, ctx, p, { to: 'FORWARDING' });
    return;
  }
  // Released held funds come back here already AML_PENDING.
  if (p.paymentState === 'DETECTED') {
    if (!(await move(ctx.prisma, ctx, p, { to: 'AML_PENDING' }))) return;
    p = { ...p, paymentState: 'AML_PENDING' };
  }
  const costTrx = ctx.settings.AML_CHECK_COST_TRX;
  const { record, passed, hold: holdReason } = await runAmlCheck(ctx.aml, { txId: p.trnHash, address: p.fromAddress, currency: p.currency }, Number(p.merchant.amlRiskLimit.toFixed()), Number(costTrx));
  if (holdReason) {
    await ctx.prisma.$transaction((tx) => move(tx, ctx, p, { to: 'HELD', reason: holdReason, data: { amlCheck: record as object, heldReason: holdReason, error: null } }));
    return;
  }
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await move(tx, ctx, p, { to: passed ? 'FORWARDING' : 'REFUNDING', data: { amlCheck: record as object } }))) return;
    if (record.completed) await changeMerchantBalance(tx, { merchantId: p.merchantId, balance: 'BALANCE', kind: 'AML_CHECK', deltaSun: -parseScaled(costTrx, TOKEN_DECIMALS), transactionId: p.id });
  });
}

function invoiceKey(p: Payment): { address: string; privateKey: string } {
  if (!p.invoice) throw new Error('payment without invoice');
  return invoiceAccount(p.invoice);
}

/**
 * Sends `amount` of the payment's token from the invoice address to `to`. USDT
 * first needs TRX at the invoice address for energy, funded from the gas wallet
 * (lib/payments/gas.ts), keyed by the send attempt it funds. Gas, fee_limit and
 * the attempt check share one estimate per round, read fresh from the node (the
 * energy price and the energy as they are now: docs/worker.md, "Sends").
 */
async function sendFromInvoice(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, amountFor: (burnSun: bigint) => Promise<bigint>): Promise<SendOutcome> {
  const { address, privateKey } = invoiceKey(p);
  const token = p.currency as Currency;
  const step = { purpose, address } as const;
  if (token === 'TRX') {
    return ensureSend(ctx, p, step, async () => {
      const cost = await ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits });
      const amount = await amountFor(cost.totalFeeSun);
      if (amount <= 0n) return null;
      return { type: 'TRANSFER', from: address, to, amountUnits: amount, currency: token, costPayer: 'PAYMENT', signed: await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount) };
    });
  }
  let estimated: Promise<TransferCost> | undefined;
  const estimate = () => (estimated ??= ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits }));
  // What the send burns (energy and bandwidth); its fee_limit, and the gas the address must hold, add GAS_MARGIN_PERCENT.
  const burnNow = async () => {
    const cost = await estimate();
    return cost.energyFeeSun + cost.bandwidthFeeSun;
  };
  const feeLimitNow = async () => withMargin(await burnNow(), ctx.settings.GAS_MARGIN_PERCENT);
  const gasFor = (attempt: number, needSun: () => Promise<bigint>) =>
    ensureGas(ctx, p, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: attempt, address }, address, needSun, purpose === 'FORWARD' ? 'MERCHANT' : 'SERVICE', { topUp: true });
  const latest = await latestSend(ctx, p.id, step);
  const attempt = nextAttempt(latest);
  if (attempt !== null) {
    // No gas for an attempt that will not be made (issue 22, case 6): the attempt limit first.
    const error = await exhausted(ctx, p, step, burnNow);
    if (error) return { state: 'exhausted', error };
    const gas = await gasFor(attempt, feeLimitNow);
    if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
  } else if (latest?.sendState === 'SIGNED') {
    // Stored and not known to be out: before it is broadcast the address holds its fee_limit, topped
    // up for the same attempt if the gas that arrived is short (it is never rebuilt unless proven
    // dead: a worker that died after broadcasting it may not have recorded that).
    const limit = feeLimitOf(latest);
    if (limit !== null) {
      const gas = await gasFor(latest.sendAttempt ?? 1, async () => limit);
      if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
    }
  }
  const plan = async (): Promise<PlannedSend | null> => {
    const cost = await estimate();
    const amount = await amountFor(cost.totalFeeSun);
    if (amount <= 0n) return null;
    return {
      type: 'TRANSFER',
      from: address,
      to,
      amountUnits: amount,
      currency: token,
      // A USDT forward's energy is the merchant's; a refund's is deducted from what is returned.
      costPayer: purpose === 'FORWARD' ? 'MERCHANT' : 'PAYMENT',
      signed: await ctx.chain.buildSignedUsdtTransfer(privateKey, to, amount, await feeLimitNow()),
    };
  };
  return ensureSend(ctx, p, step, plan, { burnNowSun: burnNow, beforeBroadcast: (row) => underfunded(ctx, p.id, row) });
}

/**
 * Why a stored USDT send must not be broadcast now, or null (issue 22, case 2). Checked with a
 * new estimate, not the one it was built on: the price or the energy may have risen meanwhile.
 * A fee_limit below what the send burns now would run OUT_OF_ENERGY and burn it all: the send is
 * kept back until it expires and is proven dead, then rebuilt at the new price. An address
 * holding less than the fee_limit (gas that arrived before the price rose) is topped up first.
 */
async function underfunded(ctx: WorkerContext, anchorId: number, row: Transaction): Promise<string | null> {
  const limit = feeLimitOf(row);
  if (limit === null) return null;
  const cost = await ctx.chain.estimateTransfer({ token: row.currency as Currency, from: row.fromAddress, to: row.toAddress, amount: row.amountUnits, feeLimitSun: limit });
  const burn = cost.energyFeeSun + cost.bandwidthFeeSun;
  if (limit < burn) return `its fee_limit of ${toDecimal(limit)} TRX is below the ${toDecimal(burn)} TRX it would burn now (the energy price or its energy rose since it was built); rebuilt once it is proven dead`;
  const have = await spendableTrx(ctx, row.fromAddress, anchorId);
  if (have < limit) return `the address holds ${toDecimal(have)} TRX of gas, less than its fee_limit of ${toDecimal(limit)} TRX; topped up first`;
  return null;
}

async function forward(ctx: WorkerContext, p: Payment): Promise<void> {
  // A forward already signed goes where it was built to go: its fate is followed to the end, whatever
  // the merchant's wallet is now (a wallet cleared or changed mid-forward must not orphan it; issue 22,
  // case 3). A new attempt, after a proven death, goes to the wallet set then.
  const current = await latestSend(ctx, p.id, { purpose: 'FORWARD' });
  const target = current && current.sendState !== 'FAILED' ? current.toAddress : p.merchant.targetWalletAddress;
  // Not waited for: a payment FORWARDING forever blocks its invoice's expiry and webhooks (case 9).
  if (!target) return hold(ctx, p, 'merchant has no target wallet: set one, then release the payment');
  const row = p.invoice?.amounts.find((a) => a.currency === p.currency);
  const fee = paymentFee(p.amountUnits, row, ctx.forwardingFeePercent);
  // Released by the merchant: forwarded as it is, the hold rules are not applied again.
  const notWorthIt = p.releaseAction === 'FORWARD' ? null : await uneconomic(ctx, p, 'FORWARD', target, fee);
  if (notWorthIt) return hold(ctx, p, notWorthIt);
  // TRX pays its own network fee out of the forwarded amount; USDT's is paid by the gas wallet.
  const outcome = await sendFromInvoice(ctx, p, 'FORWARD', target, async (burnSun) => p.amountUnits - fee - (p.currency === 'TRX' ? burnSun : 0n));
  if (outcome.state === 'pending') return;
  if (outcome.state === 'exhausted') return failPayment(ctx, p, outcome.error);
  if (outcome.state === 'skipped') return hold(ctx, p, 'uneconomic: nothing would be left to forward after the network cost');
  await settle(ctx, p, 'SETTLED', fee, outcome.row);
}

const REFUND_NOT_WORTH_IT = 'AML failed, and returning it would cost more than it is worth';

/** Returns a payment that failed AML to its sender, less the network cost of doing so. */
async function refund(ctx: WorkerContext, p: Payment): Promise<void> {
  // A merchant's release may name where held funds go back to; otherwise the sender.
  const to = p.releaseAddress ?? p.fromAddress;
  // Judged before any gas is bought for it (issue 22, case 7): gas for a refund that returns nothing would be stranded.
  // A merchant's own REFUND release is no AML matter: its reason says only what it is.
  const notWorthIt = p.releaseAction === 'REFUND' ? 'uneconomic: returning it would cost more than it is worth' : REFUND_NOT_WORTH_IT;
  if (await uneconomic(ctx, p, 'REFUND', to, 0n)) return hold(ctx, p, notWorthIt);
  const outcome = await sendFromInvoice(ctx, p, 'REFUND', to, async (burnSun) => {
    // The figures of the deduction are kept on the payment (migration 0057): reconcile recomputes the kept cost from them.
    if (p.currency === 'TRX') {
      await ctx.prisma.transaction.update({ where: { id: p.id }, data: { costSun: burnSun } });
      return p.amountUnits - burnSun;
    }
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    const gasSun = withMargin(burnSun, ctx.settings.GAS_MARGIN_PERCENT);
    await ctx.prisma.transaction.update({ where: { id: p.id }, data: { costSun: gasSun, trxRateUsd: trx.rateUsd, usdtRateUsd: usdt.rateUsd } });
    return p.amountUnits - convertUnits(gasSun, parseScaled(trx.rateUsd, RATE_DECIMALS), parseScaled(usdt.rateUsd, RATE_DECIMALS));
  });
  if (outcome.state === 'pending') return;
  if (outcome.state === 'exhausted') return failPayment(ctx, p, outcome.error);
  if (outcome.state === 'skipped') return hold(ctx, p, notWorthIt);
  await settle(ctx, p, 'REFUNDED', 0n, outcome.row);
}

/**
 * Books a finished payment: the invoice's received/forwarded amounts, its cost,
 * its status (through the one door, with its webhook) and the ledger, in one DB
 * transaction. The invoice row is locked first, so two workers settling two
 * payments of one invoice (TRX and USDT) apply both (issue 13, case 11).
 */
async function settle(ctx: WorkerContext, p: Payment, state: 'SETTLED' | 'REFUNDED', fee: bigint, sent: Transaction | null): Promise<void> {
  const invoice = p.invoice;
  const forwarded = state === 'SETTLED' && sent ? sent.amountUnits : 0n;
  const kept = state === 'SETTLED' ? fee : sent ? p.amountUnits - sent.amountUnits - (p.currency === 'TRX' ? (sent.feeSun ?? 0n) : 0n) : 0n;
  await ctx.prisma.$transaction(async (tx) => {
    if (invoice) await tx.$queryRaw`SELECT id FROM invoices WHERE id = ${invoice.id} FOR UPDATE`;
    // The door books what is kept and the static address's webhook, and flags a single-use address's gas for return.
    if (!(await move(tx, ctx, p, { to: state, keptUnits: kept, data: { feeUnits: fee, error: null } }))) return;
    if (!invoice) return;
    const row = invoice.amounts.find((a) => a.currency === p.currency);
    if (row && state === 'SETTLED') {
      await tx.invoiceCurrency.update({
        where: { invoiceId_currency: { invoiceId: invoice.id, currency: row.currency } },
        data: { receivedUnits: { increment: p.amountUnits }, forwardedUnits: { increment: forwarded } },
      });
    }
    const amounts = await tx.invoiceCurrency.findMany({ where: { invoiceId: invoice.id } });
    const current = await tx.invoice.findUniqueOrThrow({ where: { id: invoice.id } });
    // Only an AML refund ends a SINGLE invoice AML_FAILED; released held funds (returned by the merchant,
    // or screened on release and returned) change nothing: the invoice was not paid with them.
    const next = state === 'REFUNDED' ? (p.releaseAction ? current.status : refundedStatus(ctx, current, amounts, p)) : statusAfterPayments(current, amounts, ctx.settings.PAYMENT_TOLERANCE_PERCENT, await scannedUntil(tx), ctx.settings.PAYMENT_TOLERANCE_MAX_USD);
    const costCurrency = current.costCurrency ?? p.currency;
    const feeInCostCurrency = costCurrency === p.currency ? fee : convertFee(fee, amounts, p.currency, costCurrency);
    await tx.invoice.update({ where: { id: invoice.id }, data: { costUnits: (current.costUnits ?? 0n) + feeInCostCurrency, costCurrency } });
    await changeInvoiceStatus(tx, current, next);
  });
}

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
  const waiting = await ctx.prisma.transaction.count({ where: { toAddress: address, type: 'PAYMENT', paymentState: { in: [...OPEN_PAYMENT_STATES] }, id: { not: p.id } } });
  if (waiting > 0) return;
  // Its own gas or send still in flight: returned once that lands or is proven dead (the ledger then says what is left).
  const inFlight = await ctx.prisma.transaction.count({ where: { sourceId: p.id, sendState: { in: ['SIGNED', 'BROADCAST'] }, sendPurpose: { not: 'GAS_RETURN' } } });
  if (inFlight > 0) return;
  // One return per time the payment is closed: a FAILED payment retried by an operator and then
  // settled has gas to return again. Counting the confirmed ones keeps a crash between a return
  // confirming and the flag cleared harmless: the next one finds nothing left to return.
  const returned = await ctx.prisma.transaction.count({ where: { sourceId: p.id, sendPurpose: 'GAS_RETURN', sendState: 'CONFIRMED' } });
  const to = ctx.gasWallet.address;
  const outcome = await ensureSend(ctx, p, { purpose: 'GAS_RETURN', address, ...(returned > 0 && { index: returned }) }, async () => {
    const remainder = await gasRemainder(ctx, address, p.id);
    if (remainder <= 0n) return null;
    // From an activated address a TRX send uses its free daily bandwidth when it has some (then it burns nothing).
    const cost = await ctx.chain.estimateTransfer({ token: 'TRX', from: address, to, amount: remainder });
    const amount = remainder - cost.totalFeeSun;
    if (amount <= cost.totalFeeSun) {
      console.warn(`payment ${p.id}: gas remainder of ${toDecimal(remainder)} TRX kept at ${address}: returning it would burn ${toDecimal(cost.totalFeeSun)} TRX`);
      return null;
    }
    return { type: 'ACTIVATION', from: address, to, amountUnits: amount, currency: 'TRX', costPayer: 'SERVICE', signed: await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount) };
  });
  if (outcome.state === 'pending') return;
  if (outcome.state === 'exhausted') console.error(`ALERT payment ${p.id}: gas remainder at ${address} not returned: ${outcome.error}`);
  await ctx.prisma.transaction.updateMany({ where: { id: p.id, leaseOwner: ctx.owner }, data: { gasReturnDue: false } });
}

/**
 * The gas TRX at an address that is the service's to take back: what may be burned as gas
 * there (lib/payments/gas.ts: the smaller of chain and ledger, less other payments' TRX
 * waiting and the fees and held funds booked there), and never more than the gas the ledger
 * says arrived there and was not returned yet.
 */
async function gasRemainder(ctx: WorkerContext, address: string, anchorId: number): Promise<bigint> {
  const [spendable, gasIn, returned] = await Promise.all([
    spendableTrx(ctx, address, anchorId),
    ctx.prisma.ledgerEntry.aggregate({ where: { address, currency: 'TRX', kind: 'GAS_IN' }, _sum: { units: true } }),
    ctx.prisma.ledgerEntry.aggregate({ where: { address, currency: 'TRX', kind: 'GAS_RETURN_OUT' }, _sum: { units: true } }),
  ]);
  const gas = (gasIn._sum.units ?? 0n) - (returned._sum.units ?? 0n);
  return spendable < gas ? spendable : gas;
}

/**
 * A refund ends a SINGLE invoice as AML_FAILED only when the flagged payment would have paid
 * it (within the underpayment tolerance): a smaller one, e.g. 1 TRX from a flagged address to
 * grief an open invoice, is returned and the invoice stays open for the real customer, whose
 * payment still counts and is reported (issue 22, case 5). A static (MULTIPLE) address stays
 * open for its other payers: the refund is reported by the per-payment webhook and the
 * transaction's aml_check, not by closing the invoice.
 */
function refundedStatus(ctx: WorkerContext, invoice: Invoice, amounts: InvoiceCurrency[], p: Payment): InvoiceStatus {
  if (invoice.type !== 'SINGLE') return invoice.status;
  const alone = amounts.map((a) => ({ dueUnits: a.dueUnits, receivedUnits: a.currency === p.currency ? p.amountUnits : 0n }));
  const share = sharePaid(invoice, alone, ctx.settings.PAYMENT_TOLERANCE_PERCENT, ctx.settings.PAYMENT_TOLERANCE_MAX_USD);
  return share === 'below' ? invoice.status : 'AML_FAILED';
}

// A customer who paid in both tokens: the cost is kept in the first one, at the invoice's fixed rates.
function convertFee(fee: bigint, amounts: InvoiceCurrency[], from: string, to: string): bigint {
  const rate = (c: string) => amounts.find((a) => a.currency === c)?.rateUsd;
  const fromRate = rate(from);
  const toRate = rate(to);
  if (!fromRate || !toRate) return 0n;
  return convertUnits(fee, parseScaled(fromRate.toFixed(), RATE_DECIMALS), parseScaled(toRate.toFixed(), RATE_DECIMALS));
}

/**
 * A payment whose send failed for good: its funds stay at the invoice address
 * (HELD in the ledger, with the error). A SINGLE invoice that is still open
 * becomes ERROR through the one door, so a settled invoice is never reopened as
 * ERROR by a later payment (issue 13, case 7); a static address stays open and
 * reports the payment.
 */
async function failPayment(ctx: WorkerContext, p: Payment, error: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    if (p.invoice) await tx.$queryRaw`SELECT id FROM invoices WHERE id = ${p.invoice.id} FOR UPDATE`;
    if (!(await move(tx, ctx, p, { to: 'FAILED', reason: `send failed: ${error}`, data: { error } }))) return;
    // A static address is reported by the door's per-payment webhook and stays open.
    if (!p.invoice || p.invoice.type === 'MULTIPLE') return;
    await changeInvoiceStatus(tx, await tx.invoice.findUniqueOrThrow({ where: { id: p.invoice.id } }), 'ERROR');
  });
}

/**
 * Credits a merchant wallet top-up: TRX as is; USDT at the current rates less
 * TOPUP_FEE_PERCENT. The activation wallet feeds the activation balance.
 */
async function creditTopup(ctx: WorkerContext, p: Payment): Promise<void> {
  let creditSun = p.amountUnits;
  let fee = 0n;
  let rates: { trxRateUsd: string; usdtRateUsd: string } | undefined;
  if (p.currency === 'USDT') {
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    const gross = (p.amountUnits * parseScaled(usdt.rateUsd, RATE_DECIMALS)) / parseScaled(trx.rateUsd, RATE_DECIMALS);
    fee = percentOf(gross, ctx.topupFeePercent);
    creditSun = gross - fee;
    // Kept with the top-up (migration 0057): reconcile recomputes the credit from them.
    rates = { trxRateUsd: trx.rateUsd, usdtRateUsd: usdt.rateUsd };
  }
  const balance = p.toAddress === p.merchant.activationWalletAddress ? 'ACTIVATION' : 'BALANCE';
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await move(tx, ctx, p, { to: 'SETTLED', data: { feeUnits: fee, ...rates } }))) return;
    await changeMerchantBalance(tx, { merchantId: p.merchantId, balance, kind: 'TOPUP_CREDIT', deltaSun: creditSun, transactionId: p.id });
  });
}
