import { createHash, randomInt } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';
import type { PrismaClient, User } from '@/lib/generated/prisma/client';
import { execute, queryRows, sql, type PrismaRaw } from '@/lib/db/sql';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { open, seal } from '@/lib/crypto/secretBox';
import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { AppError, fieldErrors } from '@/lib/errors';

/**
 * Two-factor sign-in with an authenticator app (issue 40): TOTP as RFC 6238 defines it (30 s steps,
 * 6 digits, SHA-1: what every authenticator app reads from an otpauth:// URI), through otplib.
 * Two-factor sign-in belongs to the user (migration 0101: a login, not a store); its audit rows go
 * to the store the user is signed in to (or, for the operator's reset, to each of the user's stores).
 * Enrolment is two steps, so a user cannot lock itself out with a secret its app never took:
 * `startTotp` stores a new secret (off), `confirmTotp` turns it on once a code from it is given and
 * answers the recovery codes, once. On, the second factor is asked at sign-in and with the password
 * when a money-moving change needs re-authentication (lib/auth/reauth.ts).
 *
 * Passkeys (lib/auth/passkeys.ts) are the other second factor: two-factor sign-in is on while TOTP
 * is on or the user holds at least one passkey (`hasSecondFactor`). The recovery codes belong to
 * two-factor sign-in, not to TOTP: issued with the first second factor (TOTP confirmed or a passkey
 * registered), kept while either remains, cleared when the last one goes.
 */

const ISSUER = 'Tron Invoicing';
const STEP_SECONDS = 30;
/** One step either side: a phone's clock a little off, or a code typed as it turned over. */
const TOLERANCE_SECONDS = STEP_SECONDS;
export const RECOVERY_CODES = 10;

/** The sign-in form's `error` when the password was right and a code is needed, or the code was wrong. */
export const TWO_FACTOR_REQUIRED = 'TwoFactorRequired';
export const WRONG_TWO_FACTOR_CODE = 'WrongTwoFactorCode';

export type TwoFactorState = 'off' | 'pending' | 'on';

/** The columns of a user's passkeys the dashboard lists; load them with the user (`include: { passkeys: PASSKEY_SUMMARY }`). */
export const PASSKEY_SUMMARY = { select: { id: true, name: true, createdAt: true, lastUsedAt: true }, orderBy: { id: 'asc' } } as const;

export interface PasskeySummary {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A user as loaded with its passkeys (lib/auth/session.ts loads every signed-in user so). */
export type UserWithPasskeys = User & { passkeys: PasskeySummary[] };

/** What `hasSecondFactor` needs to know: whether TOTP is on, and the user's passkeys (any columns: only their number counts). */
export type SecondFactors = Pick<User, 'totpEnabledAt'> & { passkeys: readonly unknown[] };

/**
 * Whether two-factor sign-in is on for the user: TOTP on, or at least one passkey. The one answer
 * to that question: sign-in, re-authentication and the dashboard all ask it here.
 */
export function hasSecondFactor(user: SecondFactors): boolean {
  return user.totpEnabledAt !== null || user.passkeys.length > 0;
}

/** The columns of two-factor sign-in when it is off: no secret, no step taken, no recovery codes. */
export const TOTP_OFF = { totpSecretEnc: null, totpEnabledAt: null, totpLastStep: null, totpRecoveryHashes: [] as string[] };

export function twoFactorState(user: Pick<User, 'totpSecretEnc' | 'totpEnabledAt'>): TwoFactorState {
  if (user.totpEnabledAt) return 'on';
  return user.totpSecretEnc ? 'pending' : 'off';
}

/** A passkey as the dashboard lists it. */
export interface PasskeyJson {
  id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export function passkeyJson(p: PasskeySummary): PasskeyJson {
  return { id: p.id, name: p.name, created_at: p.createdAt.toISOString(), last_used_at: p.lastUsedAt?.toISOString() ?? null };
}

export interface TwoFactorJson {
  /** Two-factor sign-in on, as `hasSecondFactor` counts it (TOTP on, or a passkey): what the dashboard's notices read. */
  on: boolean;
  totp: TwoFactorState;
  recovery_codes_left: number;
  passkeys: PasskeyJson[];
}

/** What the dashboard shows: whether TOTP is on, the passkeys, and how many recovery codes are left. */
export function twoFactorJson(user: Pick<User, 'totpSecretEnc' | 'totpEnabledAt' | 'totpRecoveryHashes'> & { passkeys: PasskeySummary[] }): TwoFactorJson {
  const on = hasSecondFactor(user);
  return {
    on,
    totp: twoFactorState(user),
    recovery_codes_left: on ? user.totpRecoveryHashes.length : 0,
    passkeys: user.passkeys.map(passkeyJson),
  };
}

/** twoFactorJson of the user as it is now in the database (after a change). */
export async function currentTwoFactorJson(db: PrismaClient, userId: number): Promise<TwoFactorJson> {
  return twoFactorJson(await db.user.findUniqueOrThrow({ where: { id: userId }, include: { passkeys: PASSKEY_SUMMARY } }));
}

/** Starts (or starts again) enrolment: a new secret, off until confirmed. Refused while on. */
export async function startTotp(db: PrismaClient, user: User): Promise<{ secret: string; otpauth_uri: string }> {
  if (user.totpEnabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already on; turn it off first to enrol another app.');
  const secret = generateSecret();
  // The recovery codes stay: a passkey may be using them (and with no second factor there are none).
  await db.user.update({ where: { id: user.id }, data: { totpSecretEnc: seal(masterKeyRing(), secret), totpLastStep: null } });
  return { secret, otpauth_uri: generateURI({ issuer: ISSUER, label: user.email, secret }) };
}

/**
 * Turns TOTP on when `code` comes from the secret startTotp stored, and, when it is the user's
 * first second factor, answers the recovery codes: shown this once, stored only as hashes. With a
 * passkey already registered the codes given then stay good, and none are answered (an empty list).
 */
export async function confirmTotp(db: PrismaClient, user: User, merchantId: number, code: string, by: AuditBy): Promise<{ recovery_codes: string[] }> {
  if (user.totpEnabledAt) throw new AppError('CONFLICT', 'Two-factor sign-in is already on.');
  if (!user.totpSecretEnc) throw new AppError('CONFLICT', 'Start the enrolment first: no authenticator secret is waiting for a code.');
  const step = totpStep(open(masterKeyRing(), user.totpSecretEnc), code, null);
  if (step === null) throw fieldErrors({ code: ['Wrong code: enter the 6 digits your authenticator app shows now.'] });
  // Only the secret that was confirmed: a second startTotp in between replaced it, and this code is not from it.
  const secretEnc = user.totpSecretEnc;
  return db.$transaction(async (tx) => {
    // Whether a passkey is already a second factor, asked with the user's row held (a passkey added meanwhile waits).
    await lockUser(tx, user.id);
    const passkeys = await tx.passkey.count({ where: { userId: user.id } });
    const codes = passkeys > 0 ? [] : newRecoveryCodes();
    const { count } = await tx.user.updateMany({
      where: { id: user.id, totpSecretEnc: secretEnc, totpEnabledAt: null },
      data: { totpEnabledAt: new Date(), totpLastStep: step, ...(codes.length > 0 && { totpRecoveryHashes: codes.map(recoveryHash) }) },
    });
    if (count !== 1) throw new AppError('CONFLICT', 'The enrolment changed meanwhile; start it again.');
    await recordAudit(tx, by, { merchantId, action: 'two_factor_changed', subject: 'totp', before: { totp: 'pending' }, after: { totp: 'on' } });
    return { recovery_codes: codes };
  });
}

/**
 * Turns TOTP off; the caller has checked the second factor (a code or a recovery code). The
 * recovery codes go with it only when no passkey remains: two-factor sign-in is still on otherwise.
 */
export async function turnOffTotp(db: PrismaClient, user: User, merchantId: number, by: AuditBy): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockUser(tx, user.id);
    const passkeys = await tx.passkey.count({ where: { userId: user.id } });
    const { totpRecoveryHashes: _kept, ...totpOnly } = TOTP_OFF;
    await tx.user.update({ where: { id: user.id }, data: passkeys > 0 ? totpOnly : TOTP_OFF });
    await recordAudit(tx, by, { merchantId, action: 'two_factor_changed', subject: 'totp', before: { totp: twoFactorState(user) }, after: { totp: 'off' } });
  });
}

/**
 * The operator's way back in for a user that lost its phone (or its passkeys) and its recovery codes
 * (`npm run two-factor:reset -- <e-mail>`, docs/operations.md), once the operator has made sure
 * out of band that the request comes from the user: two-factor sign-in off (TOTP, every passkey,
 * the recovery codes) and every session ended, so whoever held one must sign in again; a row in the
 * audit log of each of the user's stores. Answers whether it was on; NOT_FOUND for no such account.
 */
export async function resetTwoFactor(db: PrismaClient, email: string, by: AuditBy): Promise<boolean> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() }, include: { memberships: { select: { merchantId: true } }, passkeys: { select: { id: true } } } });
  if (!user) throw new AppError('NOT_FOUND', `No account has the e-mail ${email}.`);
  await db.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: user.id },
      data: { ...TOTP_OFF, sessionEpoch: { increment: 1 } },
    });
    await tx.passkey.deleteMany({ where: { userId: user.id } });
    for (const { merchantId } of user.memberships) {
      await recordAudit(tx, by, {
        merchantId,
        action: 'two_factor_changed',
        subject: 'totp',
        before: { totp: twoFactorState(user), ...(user.passkeys.length > 0 && { passkeys: user.passkeys.length }) },
        after: { totp: 'off', ...(user.passkeys.length > 0 && { passkeys: 0 }), sessions_ended: true },
      });
    }
  });
  return hasSecondFactor(user);
}

/**
 * Whether `code` is a second factor of the user's, used up by this check: a TOTP code newer than
 * the last one accepted (each good once), or an unused recovery code (removed). Both are taken with
 * a conditional UPDATE, so two requests with the same code cannot both pass. A recovery code is
 * good while two-factor sign-in is on by either factor (a passkey's user has them too); a passkey
 * itself is checked by lib/auth/passkeys.ts.
 */
export async function useSecondFactor(db: PrismaClient, user: User & SecondFactors, code: string): Promise<boolean> {
  if (!hasSecondFactor(user)) return false;
  if (totpToken(code) !== null) {
    if (!user.totpEnabledAt || !user.totpSecretEnc) return false;
    const step = totpStep(open(masterKeyRing(), user.totpSecretEnc), code, user.totpLastStep);
    if (step === null) return false;
    const { count } = await db.user.updateMany({
      where: { id: user.id, totpEnabledAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return count === 1;
  }
  const hash = recoveryHash(code);
  const taken = await execute(db, sql`
    UPDATE users SET totp_recovery_hashes = array_remove(totp_recovery_hashes, ${hash})
    WHERE id = ${user.id} AND ${hash} = ANY(totp_recovery_hashes)
      AND (totp_enabled_at IS NOT NULL OR EXISTS (SELECT 1 FROM passkeys WHERE passkeys.user_id = users.id))`);
  return taken === 1;
}

/**
 * Holds the user's row until the transaction ends: changes to its second factors (TOTP off, a
 * passkey added or removed) are serialised, so "is this the first (or the last) factor" is
 * answered once, by one of them.
 */
export async function lockUser(tx: PrismaRaw, userId: number): Promise<void> {
  await queryRows(tx, sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`);
}

/** A new set of recovery codes (shown once; keep `recoveryHash` of each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
}

/** The time step `code` was made for, if it is one of this secret's codes newer than `after`; else null. */
function totpStep(secret: string, code: string, after: bigint | null): bigint | null {
  const token = totpToken(code);
  if (token === null) return null;
  const now = Math.floor(Date.now() / 1000);
  const result = verifySync({ secret, token, epoch: now, epochTolerance: TOLERANCE_SECONDS, ...(after !== null && { afterTimeStep: Number(after) }) });
  return result.valid ? BigInt(Math.floor(now / STEP_SECONDS) + result.delta) : null;
}

/** A code as typed, spaces taken out, when it has the shape of an authenticator app's (6 digits); else null (a recovery code, or nothing). */
function totpToken(code: string): string | null {
  const digits = code.replace(/\s/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** Ten random characters from an alphabet without look-alikes, shown as xxxxx-xxxxx. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const chars = Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Recovery codes are random (about 49 bits), so a fast hash suffices; case, spaces and dashes do not count. */
export function recoveryHash(code: string): string {
  return createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');
}
