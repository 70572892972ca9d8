import { dashboardRoute } from '@/lib/auth/dashboardRoute';
import { db } from '@/lib/db/client';
import { rotateWebhookSecret, webhookSecret } from '@/lib/merchants/settings';

const noStore = { 'cache-control': 'no-store' };

export const GET = dashboardRoute(async ({ merchant }) => Response.json({ secret: webhookSecret(merchant) }, { headers: noStore }));

export const POST = dashboardRoute(async ({ merchant }) => Response.json({ secret: await rotateWebhookSecret(db(), merchant.id) }, { headers: noStore }));
