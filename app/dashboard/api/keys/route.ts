import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { issueApiKey, listApiKeys } from '@/lib/auth/apiKeys';
import { newApiKeySchema } from '@/lib/auth/schemas';

export const GET = dashboardRoute(async ({ merchant }) => listApiKeys(db(), merchant.id));

// The plain key is in this answer only; afterwards the dashboard knows just its prefix.
export const POST = dashboardRoute(async ({ req, merchant }) => {
  const { label } = parseOrThrow(newApiKeySchema, await readJson(req));
  // A key can create payouts: issuing one needs a recent sign-in or the password.
  await requireRecentAuth(req, merchant);
  return Response.json({ key: await issueApiKey(db(), merchant.id, label) }, { headers: { 'cache-control': 'no-store' } });
});

// Any other method: a JSON 405, not Next's empty one.
export const { PUT, PATCH, DELETE } = otherMethods(['GET', 'POST']);
