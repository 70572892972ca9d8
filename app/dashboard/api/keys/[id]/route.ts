import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { idParam } from '@/lib/http/request';
import { db } from '@/lib/db/client';
import { API_KEY_NOT_FOUND, revokeApiKey } from '@/lib/auth/apiKeys';

export const DELETE = dashboardRoute<{ id: string }>(async ({ req, params, merchant }) => {
  // Revoking a key stops the merchant's shop from calling the API (issue 34, item 5): a recent
  // sign-in or the password, asked before the key is looked up, so an unknown id answers alike.
  await requireRecentAuth(req, merchant);
  await revokeApiKey(db(), merchant.id, idParam(params.id, API_KEY_NOT_FOUND));
  return new Response(null, { status: 204 });
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, POST, PUT, PATCH } = otherMethods(['DELETE']);
