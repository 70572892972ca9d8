import { z } from 'zod';
import { Prisma, type Merchant, type PrismaClient } from '@/lib/generated/prisma/client';
import { fieldErrors } from '@/lib/errors';
import { createMerchant } from '@/lib/merchants/service';
import { hashPassword } from './passwords';

export const credentialsSchema = z.object({
  email: z.string().trim().toLowerCase().max(254).pipe(z.email('Enter a valid e-mail address.')),
  // bcrypt reads at most 72 bytes; longer passwords would be silently truncated.
  password: z
    .string()
    .min(10, 'Use at least 10 characters.')
    .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'Use at most 72 bytes.'),
});

export type Credentials = z.output<typeof credentialsSchema>;

export async function registerMerchant(prisma: PrismaClient, input: Credentials): Promise<Merchant> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await createMerchant(prisma, { email: input.email, passwordHash });
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
      throw fieldErrors({ email: ['An account with this e-mail already exists.'] });
    }
    throw err;
  }
}
