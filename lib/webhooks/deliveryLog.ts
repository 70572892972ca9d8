import type { PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { notFound } from '@/lib/errors';
import type { Page } from '@/lib/schemas/page';
import type { DeliveriesQuery } from './schemas';

/** The merchant's webhook deliveries, newest first, with the exact count for the paging envelope. */
export async function listDeliveries(prisma: PrismaClient, merchantId: number, q: Pick<DeliveriesQuery, 'status' | 'invoice_id'>, page: Page) {
  const where = { merchantId, ...(q.status && { status: q.status }), ...(q.invoice_id !== undefined && { invoiceId: q.invoice_id }) };
  const [count, rows] = await prisma.$transaction([
    prisma.webhookDelivery.count({ where }),
    prisma.webhookDelivery.findMany({ where, orderBy: { id: 'desc' }, take: page.limit, skip: page.offset }),
  ]);
  return { count, rows };
}

/** One of the merchant's deliveries; another merchant's, or none, is a 404. */
export async function getDelivery(prisma: PrismaClient, merchantId: number, id: number, notFoundDetail: string): Promise<WebhookDelivery> {
  const delivery = await prisma.webhookDelivery.findFirst({ where: { id, merchantId } });
  if (!delivery) throw notFound(notFoundDetail);
  return delivery;
}
