import type { Prisma, Transaction } from '@/lib/generated/prisma/client';
import { heldReasonCode } from '@/lib/transactions/heldReason';
import { apiTransactionJson } from '@/lib/transactions/serialize';

/** The event name of the opt-in webhook for a payment held for the merchant (docs/webhooks.md). */
export const PAYMENT_HELD_EVENT = 'payment.held';

/**
 * The "payment.held" webhook's body: the Transaction object (spec 2.2, as `GET /transaction/{trn_hash}`
 * answers it, with its `held.reason` in the worker's words) led by `event` and `held_reason`, the
 * reason as a code (`canceled`, `token`, `dust`, `other`). A receiver tells it from spec 6's
 * invoice webhooks by `event`, which the Invoice object never has.
 */
export function paymentHeldJson(payment: Transaction) {
  return { event: PAYMENT_HELD_EVENT, held_reason: heldReasonCode(payment.heldReason), ...apiTransactionJson(payment) };
}

/**
 * Queues the "payment.held" webhook in the caller's transaction (the one that holds the payment),
 * for merchants who opted in (`webhook_held_events`, off by default so spec clients see only spec
 * 6's statuses), to the invoice's webhook URL or else the merchant's default; none without a URL.
 * Sent, signed, logged, retried and resent like every other webhook. Returns whether it was queued.
 */
export async function enqueuePaymentHeldWebhook(tx: Prisma.TransactionClient, payment: Transaction, eventKey: string): Promise<boolean> {
  if (payment.invoiceId === null || payment.merchantId === null) return false;
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: payment.invoiceId }, select: { webhookUrl: true, merchant: { select: { webhookUrl: true, webhookHeldEvents: true } } } });
  if (!invoice.merchant.webhookHeldEvents) return false;
  const url = invoice.webhookUrl ?? invoice.merchant.webhookUrl;
  if (!url) return false;
  const { count } = await tx.webhookDelivery.createMany({
    data: [{ merchantId: payment.merchantId, invoiceId: payment.invoiceId, eventKey, url, payload: paymentHeldJson(payment) }],
    skipDuplicates: true,
  });
  return count === 1;
}

/** The opt-in refund events (docs/webhooks.md, docs/refunds.md). */
export const REFUND_EVENTS = ['refund.created', 'refund.claimed', 'refund.sent', 'refund.failed'] as const;
export type RefundEvent = (typeof REFUND_EVENTS)[number];

/**
 * Queues a refund event in the caller's transaction (the one that makes the change it reports),
 * for merchants who opted in (`webhook_refund_events`, off by default), to the refunded invoice's
 * webhook URL or else the merchant's default; none without a URL. The body is the Refund object
 * led by `event`; once per refund and event (`refund:<id>:<event>`).
 */
export async function enqueueRefundWebhook(tx: Prisma.TransactionClient, refund: { id: number; merchantId: number; invoiceId: number }, event: RefundEvent, body: object): Promise<boolean> {
  const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: refund.invoiceId }, select: { webhookUrl: true, merchant: { select: { webhookUrl: true, webhookRefundEvents: true } } } });
  if (!invoice.merchant.webhookRefundEvents) return false;
  const url = invoice.webhookUrl ?? invoice.merchant.webhookUrl;
  if (!url) return false;
  const { count } = await tx.webhookDelivery.createMany({
    data: [{ merchantId: refund.merchantId, invoiceId: refund.invoiceId, eventKey: `refund:${refund.id}:${event}`, url, payload: { event, ...body } }],
    skipDuplicates: true,
  });
  return count === 1;
}
