import { config } from '@/lib/config';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/errors';
import { verifyPassword } from './passwords';
import type { SignedIn } from './session';
import { throttledSignIn } from './signInThrottle';

const CONFIRM_PASSWORD_HEADER = 'x-confirm-password';

/** Header values are bytes, so the dashboard sends the password percent-encoded (UTF-8); plain ASCII reads as itself. */
function decodeHeader(value: string | null): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A dashboard request as the re-authentication sees it: the session its caller signed in with, the request and its address. */
export interface ReauthRequest extends SignedIn {
  req: Request;
  db: PrismaClient;
  ip: string | null;
}

/**
 * Changes that can move funds or open the account to others (target wallet,
 * webhook secret, API keys, IP whitelist; issue 14, finding 2), and those that
 * change what customers are shown or where the merchant's data goes (payment
 * page profile, webhook URL) or that stop its shop (revoking an API key; issue
 * 34, item 5) need more than a session cookie: a sign-in younger than DASHBOARD_REAUTH_MINUTES, or the
 * password again in the `X-Confirm-Password` header. A wrong password counts
 * as a failed sign-in (same limits), so the header is no side door for guessing.
 */
export async function requireRecentAuth({ req, db, merchant, authAt, ip }: ReauthRequest): Promise<void> {
  const windowSeconds = config().DASHBOARD_REAUTH_MINUTES * 60;
  if (Date.now() / 1000 - authAt < windowSeconds) return;
  const given = decodeHeader(req.headers.get(CONFIRM_PASSWORD_HEADER));
  if (!given) {
    throw new AppError('REAUTH_REQUIRED', 'Confirm your password to make this change.');
  }
  // Too many attempts throws TooManyAttempts, a RATE_LIMITED AppError (429 at the edge).
  const ok = await throttledSignIn(db, { email: merchant.email, ip: ip ?? 'unknown' }, async () => ((await verifyPassword(given, merchant.passwordHash)) ? true : null));
  if (!ok) throw new AppError('REAUTH_REQUIRED', 'Wrong password.');
}
