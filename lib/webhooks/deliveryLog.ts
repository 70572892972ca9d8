import { z } from 'zod';
import type { PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { DeliveryStatus } from '@/lib/generated/prisma/enums';
import { pageQuerySchema, type Page } from '@/lib/schemas/page';
import { isoMicro } from '@/lib/time';

export const deliveriesQuerySchema = pageQuerySchema(300).extend({
  status: z.enum(DeliveryStatus, { error: 'Must be PENDING, SENDING, DELIVERED or FAILED.' }).optional(),
  invoice_id: z.string().regex(/^\d{1,9}$/, 'Must be an invoice id.').transform(Number).optional(),
});

export type DeliveriesQuery = z.output<typeof deliveriesQuerySchema>;

export function deliveryJson(d: WebhookDelivery) {
  return {
    id: d.id,
    invoice: d.invoiceId,
    url: d.url,
    status: d.status,
    response_status: d.responseStatus,
    latency_ms: d.latencyMs,
    error: d.error,
    resend_of: d.resendOfId,
    created_at: isoMicro(d.createdAt),
    sent_at: d.sentAt && isoMicro(d.sentAt),
  };
}

export type DeliveryJson = ReturnType<typeof deliveryJson>;

export async function listDeliveries(prisma: PrismaClient, merchantId: number, q: Pick<DeliveriesQuery, 'status' | 'invoice_id'>, page: Page) {
  const where = { merchantId, ...(q.status && { status: q.status }), ...(q.invoice_id !== undefined && { invoiceId: q.invoice_id }) };
  const [count, rows] = await prisma.$transaction([
    prisma.webhookDelivery.count({ where }),
    prisma.webhookDelivery.findMany({ where, orderBy: { id: 'desc' }, take: page.limit, skip: page.offset }),
  ]);
  return { count, rows };
}
