import { z } from 'zod';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { ApiError, fieldErrors } from '@/lib/http/errors';
import { hashPassword, verifyPassword } from './passwords';
import { throttledSignIn, TooManyAttempts } from './signInThrottle';
import { credentialsSchema } from './signup';

export const passwordChangeSchema = z.object({
  current_password: z.string({ error: 'This field is required.' }).min(1, 'This field is required.'),
  new_password: credentialsSchema.shape.password,
});

/**
 * Sets a new password after checking the current one (counted like a sign-in),
 * and ends every session of the merchant, this one included: whoever had a
 * session with the old password has none any more.
 */
export async function changePassword(prisma: PrismaClient, merchant: Merchant, ip: string, input: z.output<typeof passwordChangeSchema>): Promise<void> {
  let ok: true | null;
  try {
    ok = await throttledSignIn(prisma, { email: merchant.email, ip }, async () => ((await verifyPassword(input.current_password, merchant.passwordHash)) ? true : null));
  } catch (err) {
    if (err instanceof TooManyAttempts) throw new ApiError(429, err.message);
    throw err;
  }
  if (!ok) throw fieldErrors({ current_password: ['Wrong password.'] });
  const passwordHash = await hashPassword(input.new_password);
  await prisma.merchant.update({ where: { id: merchant.id }, data: { passwordHash, sessionEpoch: { increment: 1 } } });
}
