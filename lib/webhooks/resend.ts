import { randomUUID } from 'node:crypto';
import type { PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { notFound } from '@/lib/http/errors';

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
