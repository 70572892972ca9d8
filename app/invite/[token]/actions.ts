'use server';

import { headers } from 'next/headers';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { throttledSignIn, TooManyAttempts } from '@/lib/auth/signInThrottle';
import { db } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { acceptInvitation } from '@/lib/merchants/invitations';

/**
 * Accepts an invitation (lib/merchants/invitations.ts) with the password: a new user's own, or
 * the existing user's, counted as a sign-in (a wrong one is a failed attempt, same limits). The
 * form then signs in with the e-mail and the password.
 */
export async function accept(input: { token: string; password: string }): Promise<{ email?: string; errors?: Record<string, string[]> }> {
  const ip = (await headers()).get(CLIENT_IP_HEADER) ?? 'unknown';
  const prisma = db();
  try {
    let refusal: AppError | null = null;
    const accepted = await throttledSignIn(prisma, { email: `invitation:${input.token.slice(0, 16)}`, ip }, async () => {
      try {
        return await acceptInvitation(prisma, input.token, input.password, ip);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refusal = err;
        return null;
      }
    });
    if (accepted) return { email: accepted.email };
    const err = refusal as AppError | null;
    return { errors: err?.fieldErrors ?? { form: [err?.detail ?? 'Refused.'] } };
  } catch (err) {
    if (err instanceof TooManyAttempts) return { errors: { form: [err.message] } };
    throw err;
  }
}
