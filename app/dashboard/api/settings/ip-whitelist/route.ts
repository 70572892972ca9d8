import { dashboardRoute } from '@/lib/auth/dashboardRoute';
import { db } from '@/lib/db/client';
import { queryObject, readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/http/validate';
import { addIpRule, ipRuleSchema, removeIpRule, settingsJson } from '@/lib/merchants/settings';

export const POST = dashboardRoute(async ({ req, merchant }) => {
  const { rule } = parseOrThrow(ipRuleSchema, await readJson(req));
  return settingsJson(await addIpRule(db(), merchant.id, rule));
});

export const DELETE = dashboardRoute(async ({ url, merchant }) => {
  const { rule } = parseOrThrow(ipRuleSchema, queryObject(url));
  return settingsJson(await removeIpRule(db(), merchant.id, rule));
});
