import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/auth/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { rotateWebhookSecret, webhookSecret } from '@/lib/merchants/settings';

const noStore = { 'cache-control': 'no-store' };

// Whoever holds the secret can forge webhooks the merchant's shop trusts: both need a recent sign-in or the password.
export const GET = dashboardRoute(async ({ req, merchant }) => {
  await requireRecentAuth(req, merchant);
  return Response.json({ secret: webhookSecret(merchant) }, { headers: noStore });
});

export const POST = dashboardRoute(async ({ req, merchant }) => {
  await requireRecentAuth(req, merchant);
  return Response.json({ secret: await rotateWebhookSecret(db(), merchant.id) }, { headers: noStore });
});

// Any other method: a JSON 405, not Next's empty one.
export const { PUT, PATCH, DELETE } = otherMethods(['GET', 'POST']);
