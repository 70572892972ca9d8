import { z } from 'zod';
import { config } from '@/lib/config';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { invalidInput, notFound } from '@/lib/errors';
import { queueCustomerReceipt, RECEIPT_STATUSES } from '@/lib/notify/customer';
import { parseId } from '@/lib/schemas/id';
import { parseOrThrow } from '@/lib/validation';
import { isPaymentLinkKey, paymentUrl } from './linkKey';
import { INVOICE_NOT_FOUND } from './service';

/** Whether the service sends e-mail at all (SMTP configured): only then does the page offer a receipt. */
export const receiptEmailsOffered = () => Boolean(config().SMTP_URL);

/** The route's body as it comes: read by setCustomerEmail after the link's key is checked, so a wrong link says only that it opens nothing. */
export const customerEmailRequestSchema = z.unknown();

/** The payment page's `{"email": "..."}`; an empty string takes a given address back. */
export const customerEmailBodySchema = z.object({
  email: z.union([z.literal(''), z.string().trim().toLowerCase().max(254, 'Ensure this field has no more than 254 characters.').pipe(z.email('Enter a valid e-mail address.'))], { error: 'Enter a valid e-mail address.' }),
});

/** Invoices whose money never arrived have nothing to e-mail about. */
const UNPAID_ENDS: ReadonlySet<string> = new Set(['CANCELED', 'TIMEOUT', 'ERROR', 'AML_FAILED']);

/**
 * The customer's optional e-mail for a receipt and a refund's claim link (issue 36), given on the
 * payment page: needs the paymentURL's key (the page's full view), a SINGLE invoice and a service
 * that sends e-mail. Given after the invoice was paid, the receipt is queued at once; before, it
 * is queued when the invoice completes (lib/invoices/transitions.ts). Never required to pay.
 */
export async function setCustomerEmail(prisma: PrismaClient, idText: string, linkKey: string | null, body: unknown): Promise<{ email: string | null }> {
  const id = parseId(idText);
  if (id === null || !isPaymentLinkKey(id, linkKey)) throw notFound(INVOICE_NOT_FOUND);
  const invoice = await prisma.invoice.findUnique({ where: { id }, select: { type: true, status: true } });
  if (!invoice) throw notFound(INVOICE_NOT_FOUND);
  if (!receiptEmailsOffered()) throw invalidInput('This service sends no e-mail: keep the payment page\'s address as your receipt.');
  if (invoice.type !== 'SINGLE') throw invalidInput('Receipts by e-mail are sent for invoices with an amount only.');
  if (UNPAID_ENDS.has(invoice.status)) throw invalidInput('This invoice was not paid: there is no receipt to send.');
  const { email } = parseOrThrow(customerEmailBodySchema, body);
  const address = email === '' ? null : email;
  await prisma.$transaction(async (tx) => {
    await tx.invoice.update({ where: { id }, data: { customerEmail: address } });
    if (address !== null && RECEIPT_STATUSES.includes(invoice.status)) await queueCustomerReceipt(tx, id, paymentUrl(id));
  });
  return { email: address };
}
