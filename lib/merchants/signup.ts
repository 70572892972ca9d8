import { Prisma, type Merchant, type PrismaClient } from '@/lib/generated/prisma/client';
import { fieldErrors } from '@/lib/errors';
import { createMerchant } from './service';
import { hashPassword } from '@/lib/auth/passwords';
import type { Credentials } from '@/lib/auth/schemas';

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
