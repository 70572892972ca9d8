import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { db } from '@/lib/db/client';
import { pageEnvelope } from '@/lib/http/pagination';
import { queryObject } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { listDeliveries } from '@/lib/webhooks/deliveryLog';
import { deliveriesQuerySchema } from '@/lib/webhooks/schemas';
import { deliveryJson } from '@/lib/webhooks/serialize';

export const GET = dashboardRoute(async ({ url, merchant }) => {
  const { filter, page } = splitPage(parseOrThrow(deliveriesQuerySchema, queryObject(url)));
  const { count, rows } = await listDeliveries(db(), merchant.id, filter, page);
  return pageEnvelope(url, page, count, rows.map(deliveryJson));
});

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
