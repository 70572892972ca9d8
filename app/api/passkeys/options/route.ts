import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { publicAuthenticationOptions } from '@/lib/auth/passkeys';
import { otherMethods, toErrorResponse } from '@/lib/http/route';
import { REQUEST_ID_HEADER } from '@/lib/log';

export const dynamic = 'force-dynamic';

/**
 * The options for the browser's startAuthentication (lib/auth/passkeys.ts): asked by the sign-in
 * form once the password was right and two-factor sign-in is on, and by the re-authentication
 * dialog. No session is needed (there is none yet at sign-in), so it is limited per address.
 */
export async function POST(req: Request): Promise<Response> {
  try {
    return Response.json(await publicAuthenticationOptions(req.headers.get(CLIENT_IP_HEADER)), { headers: { 'cache-control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err, req.headers.get(REQUEST_ID_HEADER));
  }
}

export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
