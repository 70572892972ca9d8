import { otherMethods } from '@/lib/http/route';
// Who may call the API with the merchant's keys: changes need a recent sign-in or the password.
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { queryObject, readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { ipRuleSchema } from '@/lib/merchants/schemas';
import { addIpRule, removeIpRule, settingsJson } from '@/lib/merchants/settings';

export const POST = dashboardRoute(async ({ req, merchant }) => {
  const { rule } = parseOrThrow(ipRuleSchema, await readJson(req));
  await requireRecentAuth(req, merchant);
  return settingsJson(await addIpRule(db(), merchant.id, rule));
});

export const DELETE = dashboardRoute(async ({ req, url, merchant }) => {
  const { rule } = parseOrThrow(ipRuleSchema, queryObject(url));
  await requireRecentAuth(req, merchant);
  return settingsJson(await removeIpRule(db(), merchant.id, rule));
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH } = otherMethods(['POST', 'DELETE']);
