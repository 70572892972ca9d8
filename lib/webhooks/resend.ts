import { randomUUID } from 'node:crypto';
import type { PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { notFound } from '@/lib/errors';

export const DELIVERY_NOT_FOUND = 'No webhook delivery matches the given query.';

/**
 * Queues the same webhook again as a new outbox row: the original keeps its
 * outcome, the copy points back at it and has its own event key, so the
 * receiver can tell a resend from the first delivery.
 */
export async function resendDelivery(prisma: PrismaClient, merchantId: number, id: number): Promise<WebhookDelivery> {
  const original = await prisma.webhookDelivery.findFirst({ where: { id, merchantId } });
  if (!original) throw notFound(DELIVERY_NOT_FOUND);
  return prisma.webhookDelivery.create({
    data: {
      merchantId,
      invoiceId: original.invoiceId,
      eventKey: `resend:${original.id}:${randomUUID()}`,
      url: original.url,
      payload: original.payload ?? {},
      resendOfId: original.id,
    },
  });
}

/**
 * The event a delivery reports, as its Standard Webhooks `webhook-id`: the
 * event key of the first delivery of the chain, so a manual resend (and a
 * resend of a resend), and every automatic retry, carries the same id and a
 * receiver can de-duplicate.
 */
export async function eventIdOf(prisma: PrismaClient, delivery: Pick<WebhookDelivery, 'eventKey' | 'resendOfId' | 'retryOfId'>): Promise<string> {
  let current = delivery;
  // Bounded: a resend or a retry always points at an older row, but never trust a loop over data.
  for (let hops = 0; hops < 1000; hops++) {
    const parentId = current.resendOfId ?? current.retryOfId;
    if (parentId === null) break;
    const parent = await prisma.webhookDelivery.findUnique({ where: { id: parentId }, select: { eventKey: true, resendOfId: true, retryOfId: true } });
    if (!parent) break;
    current = parent;
  }
  return current.eventKey;
}
