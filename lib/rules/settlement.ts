import type { InvoiceCurrency, InvoiceStatus, InvoiceType } from '@/lib/generated/prisma/client';
import { divCeil, parseScaled } from '@/lib/money/decimal';
import { percentAsFraction, percentOf } from '@/lib/money/fees';
import type { Currency } from '@/lib/money/tokens';

// Shares of the due amount at 10^18, fine enough that one base unit always counts.
const WHOLE = 10n ** 18n;

/**
 * The service fee kept from one payment, in its token. SINGLE invoices carry
 * the fee in the same proportion as at creation (whether the client or the
 * merchant pays it); other payments pay FORWARDING_FEE_PERCENT.
 */
export function paymentFee(amount: bigint, row: Pick<InvoiceCurrency, 'dueUnits' | 'feeUnits'> | undefined, feePercent: string): bigint {
  const fee = row && row.dueUnits > 0n ? divCeil(amount * row.feeUnits, row.dueUnits) : percentOf(amount, feePercent);
  return fee > amount ? amount : fee;
}

/** How much of the invoice is paid, as a fraction of WHOLE, summing every accepted token. */
export function paidShare(amounts: readonly Pick<InvoiceCurrency, 'dueUnits' | 'receivedUnits'>[]): bigint {
  return amounts.reduce((sum, a) => (a.dueUnits > 0n ? sum + (a.receivedUnits * WHOLE) / a.dueUnits : sum), 0n);
}

type Tolerated = { amountUsd?: { toFixed(): string } | null; underpaymentTolerancePercent: { toFixed(): string } };

/**
 * Where the paid share stands against the due amount: within the tolerance of it, above, or
 * below. The service's tolerance is `tolerancePercent` of the amount either way, but never more
 * than `maxToleranceUsd` (when given with the invoice's USD amount): 0.5 % of a 100,000 USD
 * invoice is 500 USD a customer could keep while the merchant is told COMPLETED. Short of the
 * amount, the merchant's own tolerance counts where it is wider (issue 36: the invoice's
 * `underpaymentTolerancePercent`, the merchant's setting at its creation, uncapped: the merchant
 * chose to accept that much less); over the amount it does not.
 */
export function sharePaid(invoice: Tolerated, amounts: readonly Pick<InvoiceCurrency, 'dueUnits' | 'receivedUnits'>[], tolerancePercent: string, maxToleranceUsd?: string): 'below' | 'within' | 'above' {
  const paid = paidShare(amounts);
  let tolerance = percentAsFraction(tolerancePercent, WHOLE);
  const amountMicros = invoice.amountUsd ? parseScaled(invoice.amountUsd.toFixed(), 6) : 0n;
  if (maxToleranceUsd !== undefined && amountMicros > 0n) {
    const cap = (parseScaled(maxToleranceUsd, 6) * WHOLE) / amountMicros;
    if (cap < tolerance) tolerance = cap;
  }
  if (paid > WHOLE + tolerance) return 'above';
  const merchants = percentAsFraction(invoice.underpaymentTolerancePercent.toFixed(), WHOLE);
  const short = merchants > tolerance ? merchants : tolerance;
  return paid >= WHOLE - short ? 'within' : 'below';
}

/**
 * Status of a SINGLE invoice once its payments are counted. Within the tolerance
 * of the due amount (`sharePaid`) it is COMPLETED; above, OVERPAID; below, it stays open until
 * it expires and is then UNDERPAID (a customer may pay the rest in a second transfer).
 */
export function statusAfterPayments(
  invoice: { type: InvoiceType; status: InvoiceStatus; expiredAt: Date } & Tolerated,
  amounts: readonly Pick<InvoiceCurrency, 'dueUnits' | 'receivedUnits'>[],
  tolerancePercent: string,
  now: Date,
  maxToleranceUsd?: string,
): InvoiceStatus {
  if (invoice.type !== 'SINGLE') return invoice.status;
  const share = sharePaid(invoice, amounts, tolerancePercent, maxToleranceUsd);
  if (share === 'above') return 'OVERPAID';
  if (share === 'within') return 'COMPLETED';
  const anything = amounts.some((a) => a.receivedUnits > 0n);
  return anything && (invoice.expiredAt <= now || invoice.status === 'TIMEOUT') ? 'UNDERPAID' : invoice.status;
}

export type { Currency };
