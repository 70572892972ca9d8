import { runAmlCheck } from '@/lib/aml/check';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { open } from '@/lib/crypto/secretBox';
import type { Invoice, InvoiceCurrency, InvoiceStatus, Merchant, Prisma, Transaction } from '@/lib/generated/prisma/client';
import { canTransition } from '@/lib/invoices/states';
import { parseScaled } from '@/lib/money/decimal';
import { convertUnits, percentOf, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS, TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';
import { enqueueInvoiceWebhook } from '@/lib/webhooks/outbox';
import type { WorkerContext } from './context';
import { scannedUntil } from './scan';
import { ensureSend, latestSend, type PlannedSend, type SendOutcome } from './sends';
import { paymentFee, statusAfterPayments } from './settlementRules';

type Payment = Transaction & { invoice: (Invoice & { amounts: InvoiceCurrency[] }) | null; merchant: Merchant };
const OPEN_STATES = ['DETECTED', 'AML_PENDING', 'FORWARDING', 'REFUNDING'] as const;

/** Claims one payment no other worker holds (lease + SKIP LOCKED); null when none is due. */
async function claimPayment(ctx: WorkerContext): Promise<number | null> {
  const rows = await ctx.prisma.$queryRaw<{ id: number }[]>`
    UPDATE transactions SET lease_owner = ${ctx.owner}, lease_until = now() + make_interval(secs => ${ctx.settings.LEASE_SECONDS})
    WHERE id = (
      SELECT id FROM transactions
      WHERE payment_state IN ('DETECTED', 'AML_PENDING', 'FORWARDING', 'REFUNDING') AND (lease_until IS NULL OR lease_until < now())
      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  return rows[0]?.id ?? null;
}

/** Works through due payments; each is advanced as far as the chain allows, then released. */
export async function processPayments(ctx: WorkerContext, max = 50): Promise<number> {
  let done = 0;
  for (; done < max; done++) {
    const id = await claimPayment(ctx);
    if (id === null) break;
    try {
      await advancePayment(ctx, id);
    } catch (err) {
      console.error(`payment ${id}: ${(err as Error).message}`);
      await ctx.prisma.transaction.updateMany({ where: { id, leaseOwner: ctx.owner }, data: { error: (err as Error).message.slice(0, 500) } });
    } finally {
      // Retry after a poll interval rather than at once, so a waiting payment does not spin.
      await ctx.prisma.transaction.updateMany({
        where: { id, leaseOwner: ctx.owner },
        data: { leaseOwner: null, leaseUntil: new Date(Date.now() + ctx.settings.WORKER_POLL_MS) },
      });
    }
  }
  return done;
}

async function advancePayment(ctx: WorkerContext, id: number): Promise<void> {
  const load = () => ctx.prisma.transaction.findUniqueOrThrow({ where: { id }, include: { invoice: { include: { amounts: true } }, merchant: true } });
  let p: Payment = await load();
  if (p.type === 'TOPUP') return creditTopup(ctx, p);
  if (p.paymentState === 'DETECTED' || p.paymentState === 'AML_PENDING') {
    await screen(ctx, p);
    p = await load();
  }
  if (p.paymentState === 'FORWARDING') return forward(ctx, p);
  if (p.paymentState === 'REFUNDING') return refund(ctx, p);
}

/** Moves the payment on only while this worker still holds it. */
async function setState(tx: Prisma.TransactionClient, ctx: WorkerContext, p: Payment, data: Prisma.TransactionUpdateManyMutationInput): Promise<boolean> {
  const { count } = await tx.transaction.updateMany({ where: { id: p.id, leaseOwner: ctx.owner, paymentState: { in: [...OPEN_STATES] } }, data });
  return count === 1;
}

async function screen(ctx: WorkerContext, p: Payment): Promise<void> {
  if (!p.merchant.amlCheck) {
    await setState(ctx.prisma, ctx, p, { paymentState: 'FORWARDING' });
    return;
  }
  await setState(ctx.prisma, ctx, p, { paymentState: 'AML_PENDING' });
  const costTrx = ctx.settings.AML_CHECK_COST_TRX;
  const { record, passed } = await runAmlCheck(ctx.aml, { txId: p.trnHash, address: p.fromAddress, currency: p.currency }, Number(p.merchant.amlRiskLimit.toFixed()), Number(costTrx));
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await setState(tx, ctx, p, { amlCheck: record as object, paymentState: passed ? 'FORWARDING' : 'REFUNDING' }))) return;
    if (record.completed) await tx.merchant.update({ where: { id: p.merchantId }, data: { balanceSun: { decrement: parseScaled(costTrx, TOKEN_DECIMALS) } } });
  });
}

function invoiceKey(p: Payment): { address: string; privateKey: string } {
  if (!p.invoice) throw new Error('payment without invoice');
  return { address: p.invoice.address, privateKey: open(masterKeyRing(), p.invoice.privateKeyEnc) };
}

/**
 * Sends `amount` of the payment's token from the invoice address to `to`. USDT
 * first needs TRX at the invoice address for energy, funded from the gas wallet
 * (an ACTIVATION transaction); the gas step is keyed by the send attempt so a
 * send that failed on chain gets fresh gas, and a landed send never gets more.
 */
async function sendFromInvoice(ctx: WorkerContext, p: Payment, purpose: 'forward' | 'refund', to: string, amountFor: (burnSun: bigint) => Promise<bigint>): Promise<SendOutcome> {
  const { address, privateKey } = invoiceKey(p);
  const token = p.currency as Currency;
  if (token === 'TRX') {
    return ensureSend(ctx, p, purpose, async () => {
      const cost = await ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits });
      const amount = await amountFor(cost.totalFeeSun);
      if (amount <= 0n) return null;
      return { type: 'TRANSFER', from: address, to, amountUnits: amount, currency: token, signed: await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount) };
    });
  }
  const previous = await latestSend(ctx, p.id, purpose);
  const attempt = previous && previous.sendState !== 'FAILED' ? null : (previous ? Number(previous.sendKey?.split(':')[2]) : 0) + 1;
  const estimate = () => ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits });
  if (attempt !== null) {
    const gasPurpose = `${purpose === 'forward' ? 'gas' : 'refundgas'}-${attempt}`;
    const gas = await ensureSend(ctx, p, gasPurpose, async (): Promise<PlannedSend | null> => {
      const need = withMargin((await estimate()).totalFeeSun, ctx.settings.GAS_MARGIN_PERCENT);
      const have = await ctx.chain.getTrxBalance(address);
      if (have >= need) return null;
      const amount = need - have;
      return { type: 'ACTIVATION', from: ctx.gasWallet.address, to: address, amountUnits: amount, currency: 'TRX', signed: await ctx.chain.buildSignedTrxTransfer(ctx.gasWallet.privateKey, address, amount) };
    });
    if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
  }
  return ensureSend(ctx, p, purpose, async () => {
    const cost = await estimate();
    const amount = await amountFor(cost.totalFeeSun);
    if (amount <= 0n) return null;
    const feeLimit = withMargin(cost.energyFeeSun + cost.bandwidthFeeSun, ctx.settings.GAS_MARGIN_PERCENT);
    return { type: 'TRANSFER', from: address, to, amountUnits: amount, currency: token, signed: await ctx.chain.buildSignedUsdtTransfer(privateKey, to, amount, feeLimit) };
  });
}

async function forward(ctx: WorkerContext, p: Payment): Promise<void> {
  const target = p.merchant.targetWalletAddress;
  if (!target) {
    await ctx.prisma.transaction.update({ where: { id: p.id }, data: { error: 'merchant has no target wallet; waiting for one to be set' } });
    return;
  }
  const row = p.invoice?.amounts.find((a) => a.currency === p.currency);
  const fee = paymentFee(p.amountUnits, row, ctx.forwardingFeePercent);
  // TRX pays its own network fee out of the forwarded amount; USDT's is paid by the gas wallet.
  const outcome = await sendFromInvoice(ctx, p, 'forward', target, async (burnSun) => p.amountUnits - fee - (p.currency === 'TRX' ? burnSun : 0n));
  if (outcome.state === 'pending') return;
  if (outcome.state === 'exhausted') return failPayment(ctx, p, outcome.error);
  await settle(ctx, p, 'SETTLED', fee, outcome.state === 'confirmed' ? outcome.row.amountUnits : 0n);
}

/** Returns a payment that failed AML to its sender, less the network cost of doing so. */
async function refund(ctx: WorkerContext, p: Payment): Promise<void> {
  const outcome = await sendFromInvoice(ctx, p, 'refund', p.fromAddress, async (burnSun) => {
    if (p.currency === 'TRX') return p.amountUnits - burnSun;
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    const gasSun = withMargin(burnSun, ctx.settings.GAS_MARGIN_PERCENT);
    return p.amountUnits - convertUnits(gasSun, parseScaled(trx.rateUsd, RATE_DECIMALS), parseScaled(usdt.rateUsd, RATE_DECIMALS));
  });
  if (outcome.state === 'pending') return;
  if (outcome.state === 'exhausted') return failPayment(ctx, p, outcome.error);
  await settle(ctx, p, 'REFUNDED', 0n, 0n);
}

/**
 * Books a finished payment: the invoice's received/forwarded amounts, its cost,
 * and its status, with the webhook queued in the same DB transaction.
 */
async function settle(ctx: WorkerContext, p: Payment, state: 'SETTLED' | 'REFUNDED', fee: bigint, forwarded: bigint): Promise<void> {
  const invoice = p.invoice;
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await setState(tx, ctx, p, { paymentState: state, feeUnits: fee, error: null }))) return;
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
    const next = state === 'REFUNDED' ? refundedStatus(current) : statusAfterPayments(current, amounts, ctx.settings.PAYMENT_TOLERANCE_PERCENT, await scannedUntil(tx));
    const costCurrency = current.costCurrency ?? p.currency;
    const feeInCostCurrency = costCurrency === p.currency ? fee : convertFee(fee, amounts, p.currency, costCurrency);
    const statusChanges = next !== current.status && canTransition(current.status, next);
    await tx.invoice.update({
      where: { id: invoice.id },
      data: { costUnits: (current.costUnits ?? 0n) + feeInCostCurrency, costCurrency, ...(statusChanges && { status: next }) },
    });
    if (statusChanges) await enqueueInvoiceWebhook(tx, invoice.id, { status: next });
    if (invoice.type === 'MULTIPLE') await enqueueInvoiceWebhook(tx, invoice.id, { paymentEventId: p.eventId });
  });
}

/**
 * A refund ends a SINGLE invoice as AML_FAILED. A static (MULTIPLE) address
 * stays open for its other payers: the refund is reported by the per-payment
 * webhook and the transaction's aml_check, not by closing the invoice.
 */
const refundedStatus = (invoice: Invoice): InvoiceStatus => (invoice.type === 'SINGLE' ? 'AML_FAILED' : invoice.status);

// A customer who paid in both tokens: the cost is kept in the first one, at the invoice's fixed rates.
function convertFee(fee: bigint, amounts: InvoiceCurrency[], from: string, to: string): bigint {
  const rate = (c: string) => amounts.find((a) => a.currency === c)?.rateUsd;
  const fromRate = rate(from);
  const toRate = rate(to);
  if (!fromRate || !toRate) return 0n;
  return convertUnits(fee, parseScaled(fromRate.toFixed(), RATE_DECIMALS), parseScaled(toRate.toFixed(), RATE_DECIMALS));
}

/** A payment whose send failed for good: a SINGLE invoice ends as ERROR; a static address stays open and reports the payment. */
async function failPayment(ctx: WorkerContext, p: Payment, error: string): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await setState(tx, ctx, p, { paymentState: 'FAILED', error }))) return;
    if (!p.invoice) return;
    if (p.invoice.type === 'MULTIPLE') {
      await enqueueInvoiceWebhook(tx, p.invoice.id, { paymentEventId: p.eventId });
      return;
    }
    const { count } = await tx.invoice.updateMany({ where: { id: p.invoice.id, status: { notIn: ['ERROR', 'OVERPAID', 'AML_FAILED', 'CANCELED'] } }, data: { status: 'ERROR' } });
    if (count === 1) await enqueueInvoiceWebhook(tx, p.invoice.id, { status: 'ERROR' });
  });
}

/**
 * Credits a merchant wallet top-up: TRX as is; USDT at the current rates less
 * TOPUP_FEE_PERCENT. The activation wallet feeds the activation balance.
 */
async function creditTopup(ctx: WorkerContext, p: Payment): Promise<void> {
  let creditSun = p.amountUnits;
  let fee = 0n;
  if (p.currency === 'USDT') {
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    const gross = (p.amountUnits * parseScaled(usdt.rateUsd, RATE_DECIMALS)) / parseScaled(trx.rateUsd, RATE_DECIMALS);
    fee = percentOf(gross, ctx.topupFeePercent);
    creditSun = gross - fee;
  }
  const field = p.toAddress === p.merchant.activationWalletAddress ? 'activationBalanceSun' : 'balanceSun';
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await setState(tx, ctx, p, { paymentState: 'SETTLED', feeUnits: fee }))) return;
    await tx.merchant.update({ where: { id: p.merchantId }, data: { [field]: { increment: creditSun } } });
  });
}
