import bcrypt from 'bcryptjs';

const COST = 12;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

// Compared against when the e-mail is unknown, so a miss costs as long as a hit
// and response times do not reveal which e-mails have accounts: a cost-12 hash of a random
// password nobody kept. Written out rather than hashed at load, which cost every process that
// loads this module (each web server, a test, a script) a third of a second of CPU (issue 41).
export const DUMMY_HASH = '$2b$12$P2YKP/8.uqZGaZsrha0usOcvENpEuoiw.pArwNFJ4WGe279boSela';

export function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  return bcrypt.compare(password, hash ?? DUMMY_HASH).then((ok) => ok && hash !== null);
}
