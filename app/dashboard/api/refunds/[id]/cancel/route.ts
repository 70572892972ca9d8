import { db } from '@/lib/db/client';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam } from '@/lib/http/request';
import { otherMethods } from '@/lib/http/route';
import { cancelRefund, REFUND_NOT_FOUND } from '@/lib/refunds/service';

/** Cancels a refund waiting for its address or its top-up, as the API's `DELETE /refund/{id}/cancel`. */
export const POST = dashboardRoute<{ id: string }>(async ({ params, merchant }) => cancelRefund(db(), merchant, idParam(params.id, REFUND_NOT_FOUND)));

export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
