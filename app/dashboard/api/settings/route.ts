import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { settingsSchema } from '@/lib/merchants/schemas';
import { changesGuardedSetting, settingsJson, updateSettings } from '@/lib/merchants/settings';

export const GET = dashboardRoute(async ({ merchant }) => settingsJson(merchant));

export const PATCH = dashboardRoute(async ({ req, merchant }) => {
  const input = parseOrThrow(settingsSchema, await readJson(req));
  // Where incoming payments are forwarded, what customers see on the payment page, where webhooks
  // go: changing any of them needs a recent sign-in or the password (lib/merchants/settings.ts).
  if (changesGuardedSetting(merchant, input)) await requireRecentAuth(req, merchant);
  return settingsJson(await updateSettings(db(), merchant, input));
});

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, DELETE } = otherMethods(['GET', 'PATCH']);
