import type { Invoice, InvoiceCurrency, InvoiceStatus, Transaction } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { noteWaiting } from '@/lib/energy/engine';
import { changeInvoiceStatus } from '@/lib/invoices/transitions';
import { parseScaled } from '@/lib/money/decimal';
import { convertUnits } from '@/lib/money/fees';
import { RATE_DECIMALS } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { scannedUntil } from './scan';
import { sharePaid, statusAfterPayments } from '@/lib/rules/settlement';
import { type Payment, move } from './payment';

/** How a payment closes: held, settled or refunded, or failed; each through the payment door, with the invoice's status through its own door. */
/**
 * Keeps a payment at its address, visibly: HELD with its reason on the
 * transaction (API `held`, dashboard), HELD in the ledger, not counted as
 * received until a merchant releases it. Never COMPLETED, never burned.
 */
export async function hold(ctx: WorkerContext, p: Payment, reason: string): Promise<void> {
  // Only what has surely arrived is held: a payment not final waits (issue 24), and is held once final if the reason still stands.
  if (!p.solidified) return;
  if (await ctx.prisma.$transaction((tx) => move(tx, ctx, p, { to: 'HELD', reason, data: { heldReason: reason, error: null } }))) console.warn(`payment ${p.id} held: ${reason}`);
}

/** Why a payment is held rather than sent to a smart contract (issue 34). */
export const contractHeld = (address: string, what: string) =>
  `cannot be sent: ${what} ${address} is a smart contract, which cannot receive it (TRX is refused, USDT would be lost); release it to a wallet address`;

/** Why a payment is held after the node refused its send for good (issue 34): the merchant releases it elsewhere. */
export const refusedHeld = (address: string, error: string) => `cannot be sent to ${address}: ${error}; release it to another address`;

/**
 * Books a finished payment: the invoice's received/forwarded amounts, its cost,
 * its status (through the one door, with its webhook) and the ledger, in one DB
 * transaction. The invoice row is locked first, so two workers settling two
 * payments of one invoice (TRX and USDT) apply both (issue 13, case 11).
 */
export async function settle(ctx: WorkerContext, p: Payment, state: 'SETTLED' | 'REFUNDED', fee: bigint, sent: Transaction | null): Promise<void> {
  // Reported only when final: the payment's block, and (its send confirmed) the send's (issue 24).
  if (!p.solidified) return;
  const invoice = p.invoice;
  const forwarded = state === 'SETTLED' && sent ? sent.amountUnits : 0n;
  const kept = state === 'SETTLED' ? fee : sent ? p.amountUnits - sent.amountUnits - (p.currency === 'TRX' ? (sent.feeSun ?? 0n) : 0n) : 0n;
  await ctx.prisma.$transaction(async (tx) => {
    if (invoice) await queryRows(tx, sql`SELECT id FROM invoices WHERE id = ${invoice.id} FOR UPDATE`);
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
 * A payment seen before finality whose block a reorganisation replaced, and whose transaction can no
 * longer land: the solidified chain is past its expiration (`expires_at`, kept from the transaction)
 * and the scanner did not find it. Nothing arrived and nothing was booked; its sends, bound to its
 * block, are dead (the door waits until each is proven so). Not reported: the invoice never counted it.
 */
export async function drop(ctx: WorkerContext, p: Payment): Promise<boolean> {
  const deadline = p.expiresAt ?? new Date(p.createdAt.getTime() + MAX_TRANSACTION_LIFE_MS);
  if ((await scannedUntil(ctx.prisma)).getTime() <= deadline.getTime()) return false;
  const moved = await ctx.prisma.$transaction((tx) => move(tx, ctx, p, { to: 'DROPPED', data: { error: 'its block was replaced in a reorganisation and it expired without entering another' } }));
  // It waits for nothing now: cleared through the one door for waiting reasons.
  if (moved && p.waitingReason) await noteWaiting(ctx, p, null);
  if (moved) console.warn(`payment ${p.id} (${p.trnHash}) dropped: seen in a block a reorganisation replaced, expired without entering another`);
  return moved;
}

/** A transaction's expiration lies at most 24 h past its reference block (java-tron's limit): the bound when the expiration was not read. */
const MAX_TRANSACTION_LIFE_MS = 24 * 3600_000 + 3600_000;

/**
 * A payment whose send failed for good: its funds stay at the invoice address
 * (HELD in the ledger, with the error). A SINGLE invoice that is still open
 * becomes ERROR through the one door, so a settled invoice is never reopened as
 * ERROR by a later payment (issue 13, case 7); a static address stays open and
 * reports the payment.
 */
export async function failPayment(ctx: WorkerContext, p: Payment, error: string): Promise<void> {
  if (!p.solidified) return; // failed for good once final; a payment that may vanish is not reported (issue 24)
  await ctx.prisma.$transaction(async (tx) => {
    if (p.invoice) await queryRows(tx, sql`SELECT id FROM invoices WHERE id = ${p.invoice.id} FOR UPDATE`);
    if (!(await move(tx, ctx, p, { to: 'FAILED', reason: `send failed: ${error}`, data: { error } }))) return;
    // A static address is reported by the door's per-payment webhook and stays open.
    if (!p.invoice || p.invoice.type === 'MULTIPLE') return;
    await changeInvoiceStatus(tx, await tx.invoice.findUniqueOrThrow({ where: { id: p.invoice.id } }), 'ERROR');
  });
}
