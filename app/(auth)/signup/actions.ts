'use server';

import { headers } from 'next/headers';
import { credentialsSchema } from '@/lib/auth/schemas';
import { registerMerchant } from '@/lib/merchants/signup';
import { throttledSignUp, TooManyAttempts } from '@/lib/auth/signInThrottle';
import { db } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { parseOrThrow } from '@/lib/validation';

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
    // TooManyAttempts is an AppError too: checked first, it belongs to the whole form.
    if (err instanceof TooManyAttempts) return { errors: { form: [err.message] } };
    if (err instanceof AppError) return { errors: err.fieldErrors ?? { email: [err.detail] } };
    throw err;
  }
}
