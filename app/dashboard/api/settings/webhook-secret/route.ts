import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { rotateWebhookSecret, webhookSecret } from '@/lib/merchants/settings';
import { standardWebhooksSecret } from '@/lib/webhooks/signature';

const noStore = { 'cache-control': 'no-store' };
// The same secret twice: as the HMAC key of X-Webhook-Signature, and in the `whsec_` form Standard Webhooks libraries read.
const secretJson = (secret: string) => Response.json({ secret, standard_webhooks_secret: standardWebhooksSecret(secret) }, { headers: noStore });

// Whoever holds the secret can forge webhooks the merchant's shop trusts: both need a recent sign-in or the password.
export const GET = dashboardRoute(async ({ req, merchant }) => {
  await requireRecentAuth(req, merchant);
  return secretJson(webhookSecret(merchant));
});

export const POST = dashboardRoute(async ({ req, merchant }) => {
  await requireRecentAuth(req, merchant);
  return secretJson(await rotateWebhookSecret(db(), merchant.id));
});

// Any other method: a JSON 405, not Next's empty one.
export const { PUT, PATCH, DELETE } = otherMethods(['GET', 'POST']);
