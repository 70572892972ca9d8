import { hashPassword } from '@/lib/auth/passwords';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { createMerchant } from '@/lib/merchants/service';
import { TEST_PASSWORD_HASH_COST } from './app';

/**
 * A password's bcrypt hash at the tests' cost (TEST_PASSWORD_HASH_COST, as the tests' servers
 * hash), made once per test process and password: the API lane's files hashed the same few
 * passwords about 110 times in their own processes (issue 41). What the tests sign in against is
 * still a hash made by `hashPassword`; only the copies are shared.
 */
const hashes = new Map<string, Promise<string>>();
export function passwordHash(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (!hash) {
    hash = hashPassword(password, TEST_PASSWORD_HASH_COST);
    hashes.set(password, hash);
  }
  return hash;
}

/**
 * A store with a dashboard login, as the sign-up makes it (lib/merchants/signup.ts's
 * `registerMerchant`: the owner's e-mail and password hash), with the hash from `passwordHash`.
 * The sign-up itself (its form, throttle and duplicate e-mail) is tested through the web.
 */
export function registerTestMerchant(prisma: PrismaClient, input: { email: string; password: string }): Promise<Merchant> {
  return passwordHash(input.password).then((hash) => createMerchant(prisma, { email: input.email, passwordHash: hash }));
}
