import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { changePassword, passwordChangeSchema } from '@/lib/auth/passwordChange';
import { db } from '@/lib/db/client';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';

/** Changes the password and signs out every session (the caller's too). */
export const POST = dashboardRoute(async ({ req, merchant }) => {
  const input = parseOrThrow(passwordChangeSchema, await readJson(req));
  await changePassword(db(), merchant, req.headers.get(CLIENT_IP_HEADER) ?? 'unknown', input);
  return new Response(null, { status: 204 });
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
