import type { InvoiceStatus, Prisma } from '@/lib/generated/prisma/client';
import { enqueueInvoiceWebhook, WEBHOOK_STATUSES } from './webhook';
import { canTransition } from './states';
import { noteProgress } from '@/lib/worker/wake';
import { queueCustomerReceipt, RECEIPT_STATUSES } from '@/lib/notify/customer';
import { paymentUrl } from './linkKey';

/**
 * The one door for invoice status changes. Checks the state machine
 * (lib/invoices/states.ts), changes the status only if the invoice is still in
 * `from` (so a race with another worker or a merchant's cancel cannot skip a
 * rule), and queues the webhook in the caller's DB transaction when the new
 * status is one the spec reports (part 6). `data` is written with the status.
 * Returns whether the status changed.
 */
export async function changeInvoiceStatus(
  tx: Prisma.TransactionClient,
  invoice: { id: number; status: InvoiceStatus },
  to: InvoiceStatus,
  options: { data?: Prisma.InvoiceUpdateManyMutationInput; where?: Prisma.InvoiceWhereInput } = {},
): Promise<boolean> {
  if (invoice.status === to || !canTransition(invoice.status, to)) return false;
  const { count } = await tx.invoice.updateMany({ where: { ...options.where, id: invoice.id, status: invoice.status }, data: { ...options.data, status: to } });
  if (count !== 1) return false;
  // A worker's other jobs may wait for this (the webhook, a payout's next step): woken after this step (lib/worker/wake.ts).
  noteProgress();
  if ((WEBHOOK_STATUSES as readonly string[]).includes(to)) await enqueueInvoiceWebhook(tx, invoice.id, { status: to });
  // The customer's receipt, where the customer gave an e-mail on the payment page (issue 36).
  if (RECEIPT_STATUSES.includes(to)) await queueCustomerReceipt(tx, invoice.id, paymentUrl(invoice.id));
  return true;
}
