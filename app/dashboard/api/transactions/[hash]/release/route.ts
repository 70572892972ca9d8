import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { PaymentActionError, releaseHeldByHash } from '@/lib/payments/operator';
import { releaseHeldSchema } from '@/lib/transactions/schemas';
import { transactionJson } from '@/lib/transactions/serialize';

/**
 * A merchant releases held funds: forward them, or return them to an address (docs/dashboard.md).
 * A refund sends funds to an address the caller names, so it needs a recent sign-in or the password
 * again, as a target wallet change does (issue 27, finding 2). A forward goes to the merchant's own
 * target wallet, whose change already needs it, so it does not ask.
 */
export const POST = dashboardRoute<{ hash: string }>(async ({ req, params, merchant }) => {
  const release = parseOrThrow(releaseHeldSchema, await readJson(req));
  if (release.action === 'REFUND') await requireRecentAuth(req, merchant);
  try {
    return transactionJson(await releaseHeldByHash(db(), merchant.id, params.hash, release));
  } catch (err) {
    if (!(err instanceof PaymentActionError)) throw err;
    if (err.code === 'NOT_FOUND') throw notFound(err.message);
    throw err.code === 'BAD_ADDRESS' ? fieldErrors({ address: [err.message] }) : invalidInput(err.message);
  }
});
