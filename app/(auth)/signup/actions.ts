'use server';

import { credentialsSchema, registerMerchant } from '@/lib/auth/signup';
import { db } from '@/lib/db/client';
import { ApiError } from '@/lib/http/errors';
import { parseOrThrow } from '@/lib/http/validate';

/** Creates the account; the form then signs in with the same credentials. */
export async function signUp(input: { email: string; password: string }): Promise<{ errors?: Record<string, string[]> }> {
  try {
    await registerMerchant(db(), parseOrThrow(credentialsSchema, input));
    return {};
  } catch (err) {
    if (err instanceof ApiError) return { errors: err.errors ?? { email: [err.detail] } };
    throw err;
  }
}
