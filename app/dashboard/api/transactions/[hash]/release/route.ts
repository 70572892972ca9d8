import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { readJson } from '@/lib/http/request';
import { releaseHeld } from '@/lib/http/releaseHeld';
import { parseOrThrow } from '@/lib/validation';
import { releaseHeldSchema } from '@/lib/transactions/schemas';

/**
 * A merchant releases held funds: forward them, or return them to an address (docs/dashboard.md).
 * A refund sends funds to an address the caller names, so it needs a recent sign-in or the password
 * again, as a target wallet change does (issue 27, finding 2). A forward goes to the merchant's own
 * target wallet, whose change already needs it, so it does not ask. Answered as the API's
 * `POST /held_payment/{trn_hash}/release` is (lib/http/releaseHeld.ts).
 */
export const POST = dashboardRoute<{ hash: string }>(async ({ req, params, merchant }) => {
  const release = parseOrThrow(releaseHeldSchema, await readJson(req));
  if (release.action === 'REFUND') await requireRecentAuth(req, merchant);
  return releaseHeld(db(), merchant.id, params.hash, release);
});
