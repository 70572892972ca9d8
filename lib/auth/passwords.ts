import bcrypt from 'bcryptjs';

const COST = 12;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

// Compared against when the e-mail is unknown, so a miss costs as long as a hit
// and response times do not reveal which e-mails have accounts.
const DUMMY_HASH = bcrypt.hashSync('not-a-real-password', COST);

export function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  return bcrypt.compare(password, hash ?? DUMMY_HASH).then((ok) => ok && hash !== null);
}
