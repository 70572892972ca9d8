import { z } from 'zod';
import { DeliveryStatus } from '@/lib/generated/prisma/enums';
import { pageQuerySchema } from '@/lib/schemas/page';

/** The dashboard's delivery log query (docs/dashboard.md): paging plus status and invoice filters. */
export const deliveriesQuerySchema = pageQuerySchema(300).extend({
  status: z.enum(DeliveryStatus, { error: 'Must be PENDING, SENDING, DELIVERED or FAILED.' }).optional(),
  invoice_id: z.string().regex(/^\d{1,9}$/, 'Must be an invoice id.').transform(Number).optional(),
});

export type DeliveriesQuery = z.output<typeof deliveriesQuerySchema>;
