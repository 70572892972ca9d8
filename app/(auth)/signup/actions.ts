'use server';

import { headers } from 'next/headers';
import { credentialsSchema, registerMerchant } from '@/lib/auth/signup';
import { throttledSignUp, TooManyAttempts } from '@/lib/auth/signInThrottle';
import { db } from '@/lib/db/client';
import { ApiError } from '@/lib/http/errors';
import { CLIENT_IP_HEADER } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/http/validate';

/** Creates the account; the form then signs in with the same credentials. */
export async function signUp(input: { email: string; password: string }): Promise<{ errors?: Record<string, string[]> }> {
  try {
    const credentials = parseOrThrow(credentialsSchema, input);
    // Throttled after validation: only a sign-up that gets as far as hashing the password counts.
    const ip = (await headers()).get(CLIENT_IP_HEADER) ?? 'unknown';
    const prisma = db();
    await throttledSignUp(prisma, ip, () => registerMerchant(prisma, credentials));
    return {};
  } catch (err) {
    if (err instanceof ApiError) return { errors: err.errors ?? { email: [err.detail] } };
    if (err instanceof TooManyAttempts) return { errors: { form: [err.message] } };
    throw err;
  }
}
