import { dashboardRoute } from '@/lib/auth/dashboardRoute';
import { db } from '@/lib/db/client';
import { rotateWebhookSecret, webhookSecret } from '@/lib/merchants/settings';
import { standardWebhooksSecret } from '@/lib/webhooks/signature';

const noStore = { 'cache-control': 'no-store' };
// The same secret twice: as the HMAC key of X-Webhook-Signature, and in the `whsec_` form Standard Webhooks libraries read.
const secretJson = (secret: string) => Response.json({ secret, standard_webhooks_secret: standardWebhooksSecret(secret) }, { headers: noStore });

export const GET = dashboardRoute(async ({ merchant }) => secretJson(webhookSecret(merchant)));

export const POST = dashboardRoute(async ({ merchant }) => secretJson(await rotateWebhookSecret(db(), merchant.id)));
