import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/errors';
import { verifyPassword } from './passwords';
import type { SignedIn } from './session';
import { throttledSignIn } from './signInThrottle';
import { usePasskey } from './passkeys';
import { passkeyResponseFrom } from './schemas';
import { hasSecondFactor, useSecondFactor } from './twoFactor';

const CONFIRM_PASSWORD_HEADER = 'x-confirm-password';
const CONFIRM_CODE_HEADER = 'x-confirm-code';
/** A passkey's answer instead of a code: `{challenge_id, response}` as JSON, percent-encoded as the password is. */
const CONFIRM_PASSKEY_HEADER = 'x-confirm-passkey';
/** The `reason` of a re-authentication refusal that asks for a second factor too. */
export const TWO_FACTOR_REASON = 'two_factor';

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
 * password again in the `X-Confirm-Password` header, and with two-factor sign-in on (issue 40) a
 * code from the authenticator app or a recovery code in `X-Confirm-Code`, or a passkey's answer in
 * `X-Confirm-Passkey` (lib/auth/passkeys.ts): a phished password alone moves nothing. A wrong password or code counts as a failed sign-in (same limits), so the headers
 * are no side door for guessing. The refusal says `reason: "two_factor"` when a code is asked, so
 * the dashboard's dialog asks for both.
 */
export async function requireRecentAuth({ req, db, user, merchant, authAt, ip }: ReauthRequest, { always = false }: { always?: boolean } = {}): Promise<void> {
  const windowSeconds = config().DASHBOARD_REAUTH_MINUTES * 60;
  // `always`: the change asks for the password and the second factor however recent the sign-in
  // (removing a passkey, as turning TOTP off takes a code).
  if (!always && Date.now() / 1000 - authAt < windowSeconds) return;
  const twoFactor = hasSecondFactor(user);
  const refuse = (detail: string) => new AppError('REAUTH_REQUIRED', detail, twoFactor ? { reason: TWO_FACTOR_REASON } : {});
  const given = decodeHeader(req.headers.get(CONFIRM_PASSWORD_HEADER));
  const code = req.headers.get(CONFIRM_CODE_HEADER)?.trim() ?? '';
  const passkeyText = decodeHeader(req.headers.get(CONFIRM_PASSKEY_HEADER));
  if (!given || (twoFactor && !code && !passkeyText)) {
    throw refuse(twoFactor ? 'Confirm your password and a code from your authenticator app (or a passkey) to make this change.' : 'Confirm your password to make this change.');
  }
  // Too many attempts throws TooManyAttempts, a RATE_LIMITED AppError (429 at the edge).
  const outcome = await throttledSignIn(db, { email: user.email, ip: ip ?? 'unknown' }, async () => {
    if (!(await verifyPassword(given, user.passwordHash))) return null;
    if (twoFactor && passkeyText) {
      const passkey = passkeyResponseFrom(passkeyText);
      if (!passkey || !(await usePasskey(db, user, passkey))) return null;
    } else if (twoFactor && !(await useSecondFactor(db, user, code))) return null;
    return 'ok' as const;
  });
  if (!outcome) {
    // A wrong password (or code) from a signed-in session is a failed sign-in too: a stolen cookie guessing it.
    await recordAudit(db, { actor: { kind: 'dashboard', email: user.email }, ip }, { merchantId: merchant.id, action: 'sign_in_failed', subject: 'password confirmation' });
    throw refuse(twoFactor ? (passkeyText ? 'Wrong password or passkey.' : 'Wrong password or code.') : 'Wrong password.');
  }
}
