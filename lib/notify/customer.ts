import { config } from '@/lib/config';
import type { InvoiceStatus, Prisma } from '@/lib/generated/prisma/client';
import { tokenAmountText } from '@/lib/money/tokens';
import type { MailSettings } from './mail';
import { queueMail } from './outbox';

/**
 * E-mails to the customer (issue 36), where the customer gave an address on the payment page
 * (`invoices.customer_email`) and SMTP is configured: the receipt of a paid invoice, and the claim
 * link of a refund made without an address. Queued in the caller's transaction through the mail
 * outbox, so each is sent if and only if what it reports happened, once (its event key).
 * The links come from the caller: lib/invoices and lib/refunds build them, and import this.
 */

/** The statuses a receipt is sent for: the invoice was paid and forwarded, in full, more or less. */
export const RECEIPT_STATUSES: readonly InvoiceStatus[] = ['COMPLETED', 'OVERPAID', 'UNDERPAID'];

const PAID_WORDS: Partial<Record<InvoiceStatus, string>> = {
  COMPLETED: 'is paid',
  OVERPAID: 'is paid; more than was due arrived',
  UNDERPAID: 'is closed as paid in part: less than was due arrived',
};

async function customerOf(tx: Prisma.TransactionClient, invoiceId: number) {
  return tx.invoice.findUnique({
    where: { id: invoiceId },
    select: { customerEmail: true, merchantId: true, status: true, type: true, orderId: true, merchant: { select: { storeName: true, supportEmail: true } }, amounts: { select: { currency: true, receivedUnits: true } } },
  });
}

/** Queues the receipt of a paid SINGLE invoice to its customer's e-mail, if one was given; one per invoice. */
export async function queueCustomerReceipt(tx: Prisma.TransactionClient, invoiceId: number, pageUrl: string, settings: MailSettings = config()): Promise<boolean> {
  if (!settings.SMTP_URL) return false;
  const invoice = await customerOf(tx, invoiceId);
  const words = invoice && PAID_WORDS[invoice.status];
  if (!invoice?.customerEmail || invoice.type !== 'SINGLE' || !words) return false;
  const store = invoice.merchant.storeName ?? 'the store';
  const paid = invoice.amounts.filter((a) => a.receivedUnits > 0n).map((a) => `${tokenAmountText(a.receivedUnits)} ${a.currency}`);
  return queueMail(tx, invoice.merchantId, `receipt:${invoiceId}`, {
    to: invoice.customerEmail,
    subject: `Receipt: your payment to ${store}`,
    text: [
      `Your payment to ${store} ${words}.`,
      '',
      `Invoice:  #${invoiceId}${invoice.orderId ? ` (order ${invoice.orderId})` : ''}`,
      `Received: ${paid.join(' and ') || '-'}`,
      '',
      'The payment page shows the payment and its transaction at any time:',
      pageUrl,
      ...(invoice.merchant.supportEmail ? ['', `Questions about your order: ${invoice.merchant.supportEmail}`] : []),
      '',
      'You get this e-mail because this address was entered on the payment page.',
    ].join('\n'),
  }, settings);
}

/** Queues a refund's claim link to the customer of its invoice, if an e-mail was given; one per refund. */
export async function queueRefundClaimMail(
  tx: Prisma.TransactionClient,
  refund: { id: number; invoiceId: number; amountUnits: bigint; currency: string },
  claimUrl: string,
  settings: MailSettings = config(),
): Promise<boolean> {
  if (!settings.SMTP_URL) return false;
  const invoice = await customerOf(tx, refund.invoiceId);
  if (!invoice?.customerEmail) return false;
  const store = invoice.merchant.storeName ?? 'The store';
  return queueMail(tx, invoice.merchantId, `refund-claim:${refund.id}`, {
    to: invoice.customerEmail,
    subject: `${store} is refunding ${tokenAmountText(refund.amountUnits)} ${refund.currency} to you`,
    text: [
      `${store} is refunding ${tokenAmountText(refund.amountUnits)} ${refund.currency} of your payment on invoice #${refund.invoiceId}${invoice.orderId ? ` (order ${invoice.orderId})` : ''}.`,
      `Enter the Tron address it should go to on this page (once: it cannot be changed afterwards), and follow the refund there:`,
      claimUrl,
      '',
      'Use an address of your own wallet that takes this token, not an exchange deposit address that needs a memo.',
      ...(invoice.merchant.supportEmail ? ['', `Questions: ${invoice.merchant.supportEmail}`] : []),
    ].join('\n'),
  }, settings);
}
