import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import type { Merchant } from '@/lib/generated/prisma/client';
import { ApiError } from '@/lib/http/errors';
import { CLIENT_IP_HEADER } from '@/lib/http/request';
import { verifyPassword } from './passwords';
import { currentSession } from './session';
import { throttledSignIn, TooManyAttempts } from './signInThrottle';

export const CONFIRM_PASSWORD_HEADER = 'x-confirm-password';
export const REAUTH_REQUIRED = 'reauth_required';

/**
 * Changes that can move funds or open the account to others (target wallet,
 * webhook secret, API keys, IP whitelist; issue 14, finding 2) need more than a
 * session cookie: a sign-in younger than DASHBOARD_REAUTH_MINUTES, or the
 * password again in the `X-Confirm-Password` header. A wrong password counts
 * as a failed sign-in (same limits), so the header is no side door for guessing.
 */
/** Header values are bytes, so the dashboard sends the password percent-encoded (UTF-8); plain ASCII reads as itself. */
function decodeHeader(value: string | null): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export async function requireRecentAuth(req: Request, merchant: Merchant): Promise<void> {
  const session = await currentSession();
  const windowSeconds = config().DASHBOARD_REAUTH_MINUTES * 60;
  if (session && session.merchant.id === merchant.id && Date.now() / 1000 - session.authAt < windowSeconds) return;
  const given = decodeHeader(req.headers.get(CONFIRM_PASSWORD_HEADER));
  if (!given) {
    throw new ApiError(403, 'Confirm your password to make this change.', undefined, undefined, REAUTH_REQUIRED);
  }
  const ip = req.headers.get(CLIENT_IP_HEADER) ?? 'unknown';
  let ok: true | null;
  try {
    ok = await throttledSignIn(db(), { email: merchant.email, ip }, async () => ((await verifyPassword(given, merchant.passwordHash)) ? true : null));
  } catch (err) {
    if (err instanceof TooManyAttempts) throw new ApiError(429, err.message);
    throw err;
  }
  if (!ok) throw new ApiError(403, 'Wrong password.', undefined, undefined, REAUTH_REQUIRED);
}
