import type { PrismaClient } from '@/lib/generated/prisma/client';

export const MAX_FAILED_SIGN_INS = 5;
const SIGN_IN_WINDOW_MS = 15 * 60_000;

export class TooManySignInAttempts extends Error {
  constructor() {
    super(`Too many failed sign-in attempts. Try again in ${SIGN_IN_WINDOW_MS / 60_000} minutes.`);
  }
}

interface Key {
  email: string;
  ip: string;
}

/**
 * Runs `check` (a password check) unless this e-mail and IP already failed
 * MAX_FAILED_SIGN_INS times in the window. The attempt is written *before* the
 * check and counted with the others, so concurrent guesses cannot slip past the
 * limit together; a success clears the key's history, a refusal is not counted.
 */
export async function throttledSignIn<T>(prisma: PrismaClient, key: Key, check: () => Promise<T | null>): Promise<T | null> {
  const since = new Date(Date.now() - SIGN_IN_WINDOW_MS);
  const attempt = await prisma.signInAttempt.create({ data: key, select: { id: true } });
  const recent = await prisma.signInAttempt.count({ where: { ...key, createdAt: { gte: since } } });
  if (recent > MAX_FAILED_SIGN_INS) {
    await prisma.signInAttempt.delete({ where: { id: attempt.id } });
    throw new TooManySignInAttempts();
  }
  const result = await check();
  if (result !== null) await prisma.signInAttempt.deleteMany({ where: key });
  else await prisma.signInAttempt.deleteMany({ where: { createdAt: { lt: since } } });
  return result;
}
