import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam, readJson } from '@/lib/http/request';
import { otherMethods } from '@/lib/http/route';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { PayoutReturnError, requestPayoutReturn } from '@/lib/payouts/returns';
import { payoutReturnSchema } from '@/lib/payouts/schemas';
import { parseOrThrow } from '@/lib/validation';

/**
 * A merchant asks for a payout that cannot finish to be returned to an address (docs/payouts.md,
 * "Returning a payout"). It moves funds, so it needs a recent sign-in or the password again.
 */
export const POST = dashboardRoute<{ id: string }>(async ({ req, params, merchant }) => {
  const { address } = parseOrThrow(payoutReturnSchema, await readJson(req));
  await requireRecentAuth(req, merchant);
  try {
    const r = await requestPayoutReturn(db(), idParam(params.id, INVOICE_NOT_FOUND), address, merchant.id);
    return { id: r.invoiceId, return_address: r.address, requested_at: r.requestedAt.toISOString() };
  } catch (err) {
    if (!(err instanceof PayoutReturnError)) throw err;
    if (err.code === 'NOT_FOUND') throw notFound(err.message);
    throw err.code === 'BAD_ADDRESS' ? fieldErrors({ address: [err.message] }) : invalidInput(err.message);
  }
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
