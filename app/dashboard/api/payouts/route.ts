import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { readJson } from '@/lib/http/request';
import { checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { createPayoutResponse } from '@/lib/payouts/service';

/**
 * Creates a mass payout (a MULTIPLE_TRANSFER invoice), as POST /v1/api/payment/multiple_transfer/create does.
 * It sends the merchant's funds to addresses the caller names, so it needs a recent sign-in or the
 * password again, as a target wallet change does (issue 27, finding 2). The API's own route is
 * authorised by an API key, not a session, and is unchanged.
 */
export const POST = dashboardRoute(async ({ req, merchant }) => {
  const body = await readJson(req);
  await checkInvoiceCreationRate(`merchant:${merchant.id}`);
  await requireRecentAuth(req, merchant);
  return createPayoutResponse(db(), merchant, body);
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
