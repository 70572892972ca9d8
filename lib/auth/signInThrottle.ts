import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { addressKey } from '@/lib/rateLimit';
import { AppError } from '@/lib/errors';
import { backoffMs, type Backoff } from '@/lib/backoff';

export const MAX_FAILED_SIGN_INS = 5;
/**
 * Failed sign-ins to one account from all addresses together: an attacker with
 * many addresses still gets this many guesses per window, not 5 per address.
 * The price is that such an attack also locks the owner out until the window
 * passes; the owner is never locked out by its own few mistakes.
 */
export const MAX_FAILED_SIGN_INS_PER_ACCOUNT = 20;
/**
 * The pause before answering a guess on an account under attack: 250 ms for the first failure past
 * MAX_FAILED_SIGN_INS, doubling to at most 8 s. No jitter: the pause is the same for every guess.
 */
const SLOWDOWN: Backoff = { baseMs: 250, capMs: 8_000, jitter: 0 };
/** Failed sign-ins (any e-mail) and sign-ups from one IP: each costs a bcrypt run. */
export const MAX_ATTEMPTS_PER_IP = 20;
export const MAX_SIGN_UPS_PER_IP = 5;
const WINDOW_MS = 15 * 60_000;
// Sign-ups are rows of the same table. This marker is never a valid e-mail (no "@"),
// so a sign-up can never be mistaken for, or cleared by, a sign-in.
const SIGN_UP = 'sign-up';

/** Too many attempts in the window: RATE_LIMITED, so callers can let it through to the edge (429). */
export class TooManyAttempts extends AppError {
  constructor(message: string) {
    super('RATE_LIMITED', message);
  }
}

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
 * How long to wait before checking a password when the account already has
 * `failures` failed sign-ins in the window: nothing for the first few (typos),
 * then doubling from 250 ms up to 8 s (SLOWDOWN).
 */
export function accountSlowdownMs(failures: number): number {
  if (failures < MAX_FAILED_SIGN_INS) return 0;
  return backoffMs(SLOWDOWN, failures - MAX_FAILED_SIGN_INS);
}

/**
 * Runs `attempt` unless the row it adds to `sign_in_attempts` takes any limit
 * past its maximum within the window. The row is written *before* the count,
 * so concurrent attempts cannot slip past a limit together; a refused attempt
 * removes its row again, so being refused does not extend the lock-out.
 */
export type Sleep = (ms: number) => Promise<unknown>;
const realSleep: Sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function throttled<T>(prisma: PrismaClient, key: Key, limits: Limit[], attempt: () => Promise<T>, slowdown?: { where: Prisma.SignInAttemptWhereInput; sleep: Sleep }): Promise<T> {
  const since = new Date(Date.now() - WINDOW_MS);
  const row = await prisma.signInAttempt.create({ data: key, select: { id: true } });
  for (const limit of limits) {
    if ((await prisma.signInAttempt.count({ where: { ...limit.where, createdAt: { gte: since } } })) > limit.max) {
      await prisma.signInAttempt.delete({ where: { id: row.id } });
      throw new TooManyAttempts(limit.message);
    }
  }
  if (slowdown) {
    // Earlier attempts than this one (its own row is counted, hence the - 1).
    const wait = accountSlowdownMs((await prisma.signInAttempt.count({ where: { ...slowdown.where, createdAt: { gte: since } } })) - 1);
    if (wait > 0) await slowdown.sleep(wait);
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
export async function throttledSignIn<T>(prisma: PrismaClient, given: Key, check: () => Promise<T | null>, sleep: Sleep = realSleep): Promise<T | null> {
  // An IPv6 client is counted by its /64: one subscriber holds all of it.
  const key = { email: given.email, ip: addressKey(given.ip) };
  const result = await throttled(
    prisma,
    key,
    [
      { where: key, max: MAX_FAILED_SIGN_INS, message: `Too many failed sign-in attempts. ${retry}` },
      { where: { ip: key.ip }, max: MAX_ATTEMPTS_PER_IP, message: `Too many failed sign-in attempts from this address. ${retry}` },
      { where: { email: key.email }, max: MAX_FAILED_SIGN_INS_PER_ACCOUNT, message: `Too many failed sign-in attempts on this account. ${retry}` },
    ],
    check,
    { where: { email: key.email }, sleep },
  );
  if (result !== null) await prisma.signInAttempt.deleteMany({ where: key });
  return result;
}

/** Runs `register` unless the IP signed up MAX_SIGN_UPS_PER_IP times, or used up MAX_ATTEMPTS_PER_IP, in the window. */
export function throttledSignUp<T>(prisma: PrismaClient, givenIp: string, register: () => Promise<T>): Promise<T> {
  const ip = addressKey(givenIp);
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
