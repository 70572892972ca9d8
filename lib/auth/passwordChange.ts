import { z } from 'zod';
import type { PrismaClient, User } from '@/lib/generated/prisma/client';
import { fieldErrors } from '@/lib/errors';
import { hashPassword, verifyPassword } from './passwords';
import { throttledSignIn } from './signInThrottle';
import { credentialsSchema } from './schemas';

export const passwordChangeSchema = z.object({
  current_password: z.string({ error: 'This field is required.' }).min(1, 'This field is required.'),
  new_password: credentialsSchema.shape.password,
});

/**
 * Sets a new password after checking the current one (counted like a sign-in),
 * and ends every session of the user, this one included: whoever had a
 * session with the old password has none any more.
 */
export async function changePassword(prisma: PrismaClient, user: User, ip: string, input: z.output<typeof passwordChangeSchema>): Promise<void> {
  // Too many attempts throws TooManyAttempts, a RATE_LIMITED AppError (429 at the edge).
  const ok = await throttledSignIn(prisma, { email: user.email, ip }, async () => ((await verifyPassword(input.current_password, user.passwordHash)) ? true : null));
  if (!ok) throw fieldErrors({ current_password: ['Wrong password.'] });
  const passwordHash = await hashPassword(input.new_password);
  await prisma.user.update({ where: { id: user.id }, data: { passwordHash, sessionEpoch: { increment: 1 } } });
}
