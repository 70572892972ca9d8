import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam } from '@/lib/http/request';
import { db } from '@/lib/db/client';
import { getDelivery } from '@/lib/webhooks/deliveryLog';
import { DELIVERY_NOT_FOUND, eventIdOf } from '@/lib/webhooks/resend';
import { deliveryDetailJson } from '@/lib/webhooks/serialize';

/** One delivery with the payload it sent and the receiver's answer (the log's "View"). */
export const GET = dashboardRoute<{ id: string }>(async ({ params, merchant }) => {
  const delivery = await getDelivery(db(), merchant.id, idParam(params.id, DELIVERY_NOT_FOUND), DELIVERY_NOT_FOUND);
  return deliveryDetailJson(delivery, await eventIdOf(db(), delivery));
});

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
