import type { Prisma } from '@/lib/generated/prisma/client';
import { invoiceInclude, invoiceJson } from '@/lib/invoices/serialize';

/** Statuses whose entry is reported to the merchant (spec part 6). */
export const WEBHOOK_STATUSES = ['COMPLETED', 'TIMEOUT', 'AML_FAILED', 'OVERPAID', 'UNDERPAID', 'ERROR'] as const;

/**
 * Writes a webhook into the outbox inside the caller's transaction, so it is
 * stored if and only if the change it reports is. `eventKey` is unique: the
 * same event can never be queued twice. No URL, no webhook.
 */
export async function enqueueInvoiceWebhook(tx: Prisma.TransactionClient, invoiceId: number, eventKey: string): Promise<void> {
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: invoiceId }, include: { ...invoiceInclude, merchant: { select: { email: true, webhookUrl: true } } } });
  const url = invoice.webhookUrl ?? invoice.merchant.webhookUrl;
  if (!url) return;
  await tx.webhookDelivery.createMany({
    data: [{ merchantId: invoice.merchantId, invoiceId, eventKey, url, payload: invoiceJson(invoice) }],
    skipDuplicates: true,
  });
}
