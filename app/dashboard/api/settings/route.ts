import { dashboardRoute } from '@/lib/auth/dashboardRoute';
import { db } from '@/lib/db/client';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/http/validate';
import { settingsJson, settingsSchema, updateSettings } from '@/lib/merchants/settings';

export const GET = dashboardRoute(async ({ merchant }) => settingsJson(merchant));

export const PATCH = dashboardRoute(async ({ req, merchant }) => {
  const input = parseOrThrow(settingsSchema, await readJson(req));
  return settingsJson(await updateSettings(db(), merchant.id, input));
});
