import type { PrismaClient } from '@/lib/generated/prisma/client';
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
