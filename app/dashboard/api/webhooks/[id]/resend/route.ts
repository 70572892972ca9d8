import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam } from '@/lib/http/request';
import { db } from '@/lib/db/client';
import { deliveryJson } from '@/lib/webhooks/serialize';
import { DELIVERY_NOT_FOUND, resendDelivery } from '@/lib/webhooks/resend';

export const POST = dashboardRoute<{ id: string }>(async ({ params, merchant }) =>
  deliveryJson(await resendDelivery(db(), merchant.id, idParam(params.id, DELIVERY_NOT_FOUND))),
);

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
