import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { readJson } from '@/lib/http/request';
import { payoutEstimateResponse } from '@/lib/payouts/service';

/** The mass payout cost estimate (spec 2.6), as POST /v1/api/payment/multiple_transfer/calculate answers it. */
export const POST = dashboardRoute(async ({ req }) => payoutEstimateResponse(db(), await readJson(req)));

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
