import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { readJson } from '@/lib/http/request';
import { checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { createPayoutResponse } from '@/lib/payouts/service';

/** Creates a mass payout (a MULTIPLE_TRANSFER invoice), as POST /v1/api/payment/multiple_transfer/create does. */
export const POST = dashboardRoute(async ({ req, merchant }) => {
  const body = await readJson(req);
  checkInvoiceCreationRate(`merchant:${merchant.id}`);
  return createPayoutResponse(merchant, body);
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
