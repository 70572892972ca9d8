import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';

export const MAX_FAILED_SIGN_INS = 5;
/** Failed sign-ins (any e-mail) and sign-ups from one IP: each costs a bcrypt run. */
export const MAX_ATTEMPTS_PER_IP = 20;
export const MAX_SIGN_UPS_PER_IP = 5;
const WINDOW_MS = 15 * 60_000;
// Sign-ups are rows of the same table. This marker is never a valid e-mail (no "@"),
// so a sign-up can never be mistaken for, or cleared by, a sign-in.
const SIGN_UP = 'sign-up';

export class TooManyAttempts extends Error {}

interface Key {
  email: string;
  ip: string;
}

interface Limit {
  where: Prisma.SignInAttemptWhereInput;
  max: number;
  message: string;
}

const retry = `Try again in ${WINDOW_MS / 60_000} minutes.`;

/**
 * Runs `attempt` unless the row it adds to `sign_in_attempts` takes any limit
 * past its maximum within the window. The row is written *before* the count,
 * so concurrent attempts cannot slip past a limit together; a refused attempt
 * removes its row again, so being refused does not extend the lock-out.
 */
async function throttled<T>(prisma: PrismaClient, key: Key, limits: Limit[], attempt: () => Promise<T>): Promise<T> {
  const since = new Date(Date.now() - WINDOW_MS);
  const row = await prisma.signInAttempt.create({ data: key, select: { id: true } });
  for (const limit of limits) {
    if ((await prisma.signInAttempt.count({ where: { ...limit.where, createdAt: { gte: since } } })) > limit.max) {
      await prisma.signInAttempt.delete({ where: { id: row.id } });
      throw new TooManyAttempts(limit.message);
    }
  }
  try {
    return await attempt();
  } finally {
    await prisma.signInAttempt.deleteMany({ where: { createdAt: { lt: since } } });
  }
}

/**
 * Runs `check` (a password check) unless this e-mail and IP already failed
 * MAX_FAILED_SIGN_INS times in the window, or the IP used up MAX_ATTEMPTS_PER_IP
 * across e-mails. A success clears that e-mail and IP's failures.
 */
export async function throttledSignIn<T>(prisma: PrismaClient, key: Key, check: () => Promise<T | null>): Promise<T | null> {
  const result = await throttled(
    prisma,
    key,
    [
      { where: key, max: MAX_FAILED_SIGN_INS, message: `Too many failed sign-in attempts. ${retry}` },
      { where: { ip: key.ip }, max: MAX_ATTEMPTS_PER_IP, message: `Too many failed sign-in attempts from this address. ${retry}` },
    ],
    check,
  );
  if (result !== null) await prisma.signInAttempt.deleteMany({ where: key });
  return result;
}

/** Runs `register` unless the IP signed up MAX_SIGN_UPS_PER_IP times, or used up MAX_ATTEMPTS_PER_IP, in the window. */
export function throttledSignUp<T>(prisma: PrismaClient, ip: string, register: () => Promise<T>): Promise<T> {
  return throttled(
    prisma,
    { email: SIGN_UP, ip },
    [
      { where: { email: SIGN_UP, ip }, max: MAX_SIGN_UPS_PER_IP, message: `Too many sign-ups from this address. ${retry}` },
      { where: { ip }, max: MAX_ATTEMPTS_PER_IP, message: `Too many attempts from this address. ${retry}` },
    ],
    register,
  );
}
