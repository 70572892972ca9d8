import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { config } from '@/lib/config';
import { singleton } from '@/lib/singletons';

/**
 * A new password hash, bcrypt at `cost`: PASSWORD_HASH_COST unless given (12, docs/configuration.md).
 * A hash carries its own cost, so a password hashed before the setting changed still signs in.
 */
export function hashPassword(password: string, cost: number = config().PASSWORD_HASH_COST): Promise<string> {
  return bcrypt.hash(password, cost);
}

// Compared against when the e-mail is unknown, so a miss costs as long as a hit
// and response times do not reveal which e-mails have accounts: a cost-12 hash of a random
// password nobody kept. Written out rather than hashed at load, which cost every process that
// loads this module (each web server, a test, a script) a third of a second of CPU (issue 41).
export const DUMMY_HASH = '$2b$12$P2YKP/8.uqZGaZsrha0usOcvENpEuoiw.pArwNFJ4WGe279boSela';

/**
 * The hash an unknown e-mail is checked against, as costly as the hashes this process makes: the
 * one above at cost 12; at another PASSWORD_HASH_COST one made at the first miss and kept.
 */
export function dummyHash(cost: number = config().PASSWORD_HASH_COST): Promise<string> {
  const dummies = singleton('dummyPasswordHashes', () => new Map([[12, Promise.resolve(DUMMY_HASH)]]));
  let hash = dummies.get(cost);
  if (!hash) {
    hash = bcrypt.hash(randomBytes(16).toString('hex'), cost);
    dummies.set(cost, hash);
  }
  return hash;
}

/** Whether `password` is the one `hash` was made from; a missing hash (no such user) costs a check all the same and is never a match. */
export async function verifyPassword(password: string, hash: string | null, dummyCost?: number): Promise<boolean> {
  const ok = await bcrypt.compare(password, hash ?? (await dummyHash(dummyCost)));
  return ok && hash !== null;
}
