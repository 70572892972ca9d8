import { publicBaseUrl } from '@/lib/config';
import type { Prisma } from '@/lib/generated/prisma/client';
import { tokenAmountText } from '@/lib/money/tokens';
import type { Mail } from './mail';
import { queueMail } from './outbox';

/** A claimed refund, as the claim wrote it: where the customer wants it, and the top-up that sends it. */
export interface ClaimedRefund {
  id: number;
  invoiceId: number;
  merchantId: number;
  currency: string;
  amountUnits: bigint;
  /** The customer's address, as entered. */
  address: string;
  /** The refund's payout: what the merchant sends, and where. */
  topupAddress: string;
  topupUnits: bigint;
}

/** The merchant's e-mail of a claimed refund: who gets what, what to top up where, and the invoice's page. */
export function refundClaimedMail(to: string, refund: ClaimedRefund, orderId: string | null): Mail {
  const amount = `${tokenAmountText(refund.amountUnits)} ${refund.currency}`;
  const topup = `${tokenAmountText(refund.topupUnits)} ${refund.currency}`;
  const claimed = `Your customer entered their address for refund #${refund.id} of invoice #${refund.invoiceId}${orderId ? ` (order ${orderId})` : ''}: ${amount} goes to ${refund.address}.`;
  // Money the service held for the invoice may pay for all of it (docs/refunds.md, "Funded from held money").
  const funding =
    refund.topupUnits === 0n
      ? ['Money the service held for the invoice pays for it: there is nothing to top up, and the refund goes out on its own.']
      : [`Send ${topup} (what the refund and its network cost still need; no service fee) to its top-up address, and the refund goes out:`, refund.topupAddress];
  return {
    to,
    subject: refund.topupUnits === 0n ? `Refund #${refund.id} claimed: paid from held money, nothing to top up` : `Refund #${refund.id} claimed: top up ${topup} to send it`,
    text: [
      claimed,
      ...funding,
      '',
      'The invoice\'s page shows it, with a QR code to pay from:',
      `${publicBaseUrl()}/dashboard/invoices/${refund.invoiceId}`,
    ].join('\n'),
  };
}

/**
 * Tells the merchant that a customer has claimed a refund (docs/refunds.md, "E-mail to the
 * merchant"): queued by the claim (lib/refunds/claim.ts) in its own transaction, so it is sent if
 * and only if the claim commits, once (`refund:<id>:claimed`), to the merchant's e-mail, where SMTP
 * is configured (queueMail). The opt-in `refund.claimed` webhook tells an integrator the same.
 */
export async function notifyRefundClaimed(tx: Prisma.TransactionClient, refund: ClaimedRefund): Promise<boolean> {
  const invoice = await tx.invoice.findUnique({ where: { id: refund.invoiceId }, select: { orderId: true, merchant: { select: { email: true } } } });
  if (!invoice?.merchant) return false;
  return queueMail(tx, refund.merchantId, `refund:${refund.id}:claimed`, refundClaimedMail(invoice.merchant.email, refund, invoice.orderId));
}
