import type { InvoiceStatus, Prisma } from '@/lib/generated/prisma/client';
import { invoiceInclude, invoiceJson } from './serialize';

/*
 * An invoice's webhook, queued in the outbox table (webhook_deliveries) that lib/webhooks delivers: here,
 * beside the Invoice object it carries, so the invoice status door queues it without lib/invoices importing
 * lib/webhooks, which reads invoices' deliveries (issue 35). The other events' outbox is lib/webhooks/outbox.ts.
 */

/** Statuses whose entry is reported to the merchant (spec part 6). */
export const WEBHOOK_STATUSES = ['COMPLETED', 'TIMEOUT', 'AML_FAILED', 'OVERPAID', 'UNDERPAID', 'ERROR'] as const;

/** What a webhook reports: the invoice entering a status, or one payment event on a static address. */
export type InvoiceEvent = { status: InvoiceStatus } | { paymentEventId: string | null };

/** The Idempotency-Key of an event (docs/webhooks.md). */
const eventKeyOf = (invoiceId: number, event: InvoiceEvent) =>
  'status' in event ? `invoice:${invoiceId}:${event.status}` : `invoice:${invoiceId}:payment:${event.paymentEventId}`;

/**
 * Writes a webhook into the outbox inside the caller's transaction, so it is
 * stored if and only if the change it reports is. The event key is unique: the
 * same event can never be queued twice. No URL, no webhook.
 */
export async function enqueueInvoiceWebhook(tx: Prisma.TransactionClient, invoiceId: number, event: InvoiceEvent): Promise<void> {
  const eventKey = eventKeyOf(invoiceId, event);
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: invoiceId }, include: { ...invoiceInclude, merchant: { select: { email: true, webhookUrl: true } } } });
  const url = invoice.webhookUrl ?? invoice.merchant.webhookUrl;
  if (!url) return;
  await tx.webhookDelivery.createMany({
    data: [{ merchantId: invoice.merchantId, invoiceId, eventKey, url, payload: invoiceJson(invoice) }],
    skipDuplicates: true,
  });
}
