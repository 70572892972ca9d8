import type { AuthenticationResponseJSON, AuthenticatorTransport, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Prisma, type PrismaClient, type User } from '@/lib/generated/prisma/client';
import { execute, queryRows, sql, type PrismaRaw } from '@/lib/db/sql';
import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { dashboardBaseUrl } from '@/lib/config';
import { db as processDb, sqlPool } from '@/lib/db/client';
import { AppError, fieldErrors, notFound } from '@/lib/errors';
import { addressKey, RateLimiter } from '@/lib/rateLimit';
import { derived } from '@/lib/singletons';
import type { PasskeyResponse } from './schemas';
import { hasSecondFactor, lockUser, newRecoveryCodes, passkeyJson, recoveryHash, TOTP_OFF, type PasskeyJson } from './twoFactor';

/**
 * SimpleWebAuthn, loaded when a passkey is first asked for, not as the web process starts: with the
 * certificate and ASN.1 libraries under it, importing it costs more CPU than any other package the
 * web server loads (about a fifth of a second, more than Next's server), and most web processes
 * never see a passkey (issue 41).
 */
const webauthn = () => import('@simplewebauthn/server');

/**
 * Passkeys (WebAuthn) as a second factor (issue 40), through @simplewebauthn/server. A passkey is
 * asked after the password, as a TOTP code is: two-factor sign-in is on while TOTP is on or the user
 * holds a passkey (`hasSecondFactor`, lib/auth/twoFactor.ts), and the recovery codes serve both.
 *
 * The relying party is the dashboard: its id is the hostname of the dashboard's base URL
 * (NEXTAUTH_URL, else PUBLIC_BASE_URL; a browser signs for that name only) and the origin a
 * response must come from is that URL's origin. Each ceremony's challenge is stored server-side
 * (table webauthn_challenges) for 5 minutes and taken once with DELETE ... RETURNING, before the
 * response is checked: whatever the answer, a challenge signs nothing twice, across every web process.
 *
 * Sign-in is usernameless on the browser's side (no allowCredentials: the password's form does not
 * tell the authenticator whose account it is, and the options endpoint tells an unauthenticated
 * caller nothing about which e-mails hold passkeys); the server then accepts only a credential of
 * the user the password named.
 */

const RP_NAME = 'Tron Invoicing';
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const PASSKEY_NAME = 'Passkey';

type Purpose = 'register' | 'authenticate';

/** The relying party: its id (a hostname) and the origin responses must come from. */
function relyingParty(): { rpID: string; origin: string } {
  const url = new URL(dashboardBaseUrl());
  return { rpID: url.hostname, origin: url.origin };
}

/** Stores a challenge for `purpose` (and, for a registration, its user), clearing expired ones on the way; answers its id. */
async function storeChallenge(db: PrismaClient, challenge: string, purpose: Purpose, userId: number | null): Promise<number> {
  await db.webauthnChallenge.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  const row = await db.webauthnChallenge.create({ data: { challenge, purpose, userId, expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS) }, select: { id: true } });
  return row.id;
}

/** Takes the challenge once: its text when it is `purpose`'s (and the user's, when one is given) and unexpired; else null. */
async function takeChallenge(db: PrismaRaw, id: number, purpose: Purpose, userId: number | null): Promise<string | null> {
  const rows = await queryRows<{ challenge: string }>(db, sql`
    DELETE FROM webauthn_challenges
    WHERE id = ${id} AND purpose = ${purpose} AND expires_at > now()
      AND (${userId}::int IS NULL OR user_id = ${userId}::int)
    RETURNING challenge`);
  return rows[0]?.challenge ?? null;
}

/** A WebAuthn user handle for the user: stable, so an authenticator keeps one passkey per account here, and no e-mail in it. */
function userHandle(userId: number): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`user:${userId}`) as Uint8Array<ArrayBuffer>;
}

/** The options the browser's startRegistration takes for a new passkey of the signed-in user, and the challenge's id to send back. */
export async function registrationOptions(db: PrismaClient, user: User): Promise<{ challenge_id: number; options: PublicKeyCredentialCreationOptionsJSON }> {
  const { rpID } = relyingParty();
  const existing = await db.passkey.findMany({ where: { userId: user.id }, select: { credentialId: true, transports: true } });
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID,
    userName: user.email,
    userID: userHandle(user.id),
    attestationType: 'none',
    // An authenticator that already holds one of the user's passkeys says so rather than making another.
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
    // Discoverable: sign-in asks for a passkey without naming the account to the authenticator.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  return { challenge_id: await storeChallenge(db, options.challenge, 'register', user.id), options };
}

/**
 * Stores the passkey the browser made for the options `registrationOptions` answered, once
 * @simplewebauthn/server has checked it (challenge, origin, relying party). When it is the user's
 * first second factor, the recovery codes are answered with it, once, as confirming TOTP does;
 * otherwise the codes given before stay good and the list is empty.
 */
export async function registerPasskey(db: PrismaClient, user: User, merchantId: number, input: PasskeyResponse & { name?: string | undefined }, by: AuditBy): Promise<{ passkey: PasskeyJson; recovery_codes: string[] }> {
  const { rpID, origin } = relyingParty();
  const challenge = await takeChallenge(db, input.challenge_id, 'register', user.id);
  if (challenge === null) throw new AppError('CONFLICT', 'This passkey request expired or was already used; add the passkey again.');
  let credential;
  const { verifyRegistrationResponse } = await webauthn();
  try {
    const verified = await verifyRegistrationResponse({ response: input.response as unknown as RegistrationResponseJSON, expectedChallenge: challenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification: false });
    if (!verified.verified) throw new Error('not verified');
    credential = verified.registrationInfo.credential;
  } catch {
    throw fieldErrors({ response: ['The passkey could not be verified; try again.'] });
  }
  const name = input.name || PASSKEY_NAME;
  try {
    return await db.$transaction(async (tx) => {
      await lockUser(tx, user.id);
      const now = await tx.user.findUniqueOrThrow({ where: { id: user.id }, select: { totpEnabledAt: true, passkeys: { select: { id: true } } } });
      const first = !hasSecondFactor(now);
      const codes = first ? newRecoveryCodes() : [];
      const row = await tx.passkey.create({
        data: { userId: user.id, credentialId: credential.id, publicKey: Buffer.from(credential.publicKey), counter: BigInt(credential.counter), transports: credential.transports ?? [], name },
      });
      if (first) await tx.user.update({ where: { id: user.id }, data: { totpRecoveryHashes: codes.map(recoveryHash) } });
      await recordAudit(tx, by, { merchantId, action: 'two_factor_changed', subject: 'passkey', before: { passkeys: now.passkeys.length }, after: { passkeys: now.passkeys.length + 1, added: name } });
      return { passkey: passkeyJson(row), recovery_codes: codes };
    });
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new AppError('CONFLICT', 'This passkey is already registered.');
    throw err;
  }
}

/**
 * Removes one of the user's passkeys; the caller has had the second factor confirmed. With it
 * the last second factor (no TOTP, no other passkey), the recovery codes go too.
 */
export async function removePasskey(db: PrismaClient, user: User, merchantId: number, passkeyId: number, by: AuditBy): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockUser(tx, user.id);
    const now = await tx.user.findUniqueOrThrow({ where: { id: user.id }, select: { totpEnabledAt: true, passkeys: { select: { id: true, name: true } } } });
    const gone = now.passkeys.find((p) => p.id === passkeyId);
    if (!gone) throw notFound(PASSKEY_NOT_FOUND);
    await tx.passkey.delete({ where: { id: passkeyId } });
    const left = now.passkeys.filter((p) => p !== gone);
    if (!hasSecondFactor({ totpEnabledAt: now.totpEnabledAt, passkeys: left })) await tx.user.update({ where: { id: user.id }, data: { totpRecoveryHashes: TOTP_OFF.totpRecoveryHashes } });
    await recordAudit(tx, by, { merchantId, action: 'two_factor_changed', subject: 'passkey', before: { passkeys: now.passkeys.length }, after: { passkeys: left.length, removed: gone.name } });
  });
}

export const PASSKEY_NOT_FOUND = 'No such passkey.';

/** Gives one of the user's passkeys another label (only what the dashboard lists changes). */
export async function renamePasskey(db: PrismaClient, user: User, merchantId: number, passkeyId: number, name: string, by: AuditBy): Promise<PasskeyJson> {
  return db.$transaction(async (tx) => {
    const before = await tx.passkey.findFirst({ where: { id: passkeyId, userId: user.id }, select: { name: true } });
    if (!before) throw notFound(PASSKEY_NOT_FOUND);
    const row = await tx.passkey.update({ where: { id: passkeyId }, data: { name } });
    await recordAudit(tx, by, { merchantId, action: 'two_factor_changed', subject: 'passkey', before: { name: before.name }, after: { name } });
    return passkeyJson(row);
  });
}

/**
 * The options the browser's startAuthentication takes to sign a challenge with a passkey, at
 * sign-in or re-authentication, and the challenge's id to send back with the response. No
 * credentials are listed (usernameless): the caller need not be known yet.
 */
export async function authenticationOptions(db: PrismaClient): Promise<{ challenge_id: number; options: PublicKeyCredentialRequestOptionsJSON }> {
  const { rpID } = relyingParty();
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({ rpID, userVerification: 'preferred' });
  return { challenge_id: await storeChallenge(db, options.challenge, 'authenticate', null), options };
}

/** Sign-in's passkey options a minute per address: each stores a challenge, and asking needs no account. */
const OPTIONS_PER_MINUTE = 30;

/**
 * authenticationOptions for a caller that is not signed in (the sign-in form, app/api/passkeys/options):
 * limited per address (counted in PostgreSQL, lib/rateLimit.ts), so nobody fills the challenges
 * table; a wrong answer is then throttled as a wrong code is, by the sign-in throttle.
 */
export async function publicAuthenticationOptions(ip: string | null): Promise<{ challenge_id: number; options: PublicKeyCredentialRequestOptionsJSON }> {
  const limiter = derived(publicAuthenticationOptions, () => new RateLimiter('passkey-options', OPTIONS_PER_MINUTE, () => sqlPool(processDb())));
  const wait = await limiter.take(addressKey(ip ?? 'unknown'));
  if (wait !== null) throw new AppError('RATE_LIMITED', `Too many passkey requests from this address; try again in ${wait} s.`, { retryAfterSeconds: wait });
  return authenticationOptions(processDb());
}

/**
 * Whether `input` is the user's passkey signing a challenge `authenticationOptions` gave, used up
 * by this check: the challenge is taken first (a wrong answer uses it too), the credential must
 * be one of this user's, and the signature counter must grow where the authenticator keeps one
 * (a conditional UPDATE: a cloned authenticator, or two requests with one response, pass once).
 * Any failure is only `false`, as a wrong code is.
 */
export async function usePasskey(db: PrismaClient, user: Pick<User, 'id'>, input: PasskeyResponse): Promise<boolean> {
  const { rpID, origin } = relyingParty();
  const challenge = await takeChallenge(db, input.challenge_id, 'authenticate', null);
  if (challenge === null) return false;
  const passkey = await db.passkey.findFirst({ where: { credentialId: input.response.id, userId: user.id } });
  if (!passkey) return false;
  let newCounter: number;
  const { verifyAuthenticationResponse } = await webauthn();
  try {
    const verified = await verifyAuthenticationResponse({
      response: input.response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: Number(passkey.counter), transports: passkey.transports as AuthenticatorTransport[] },
      requireUserVerification: false,
    });
    if (!verified.verified) return false;
    newCounter = verified.authenticationInfo.newCounter;
  } catch {
    return false;
  }
  // Authenticators that keep no counter (0 always, as many synced passkeys) are taken as they are.
  const taken = await execute(db, sql`
    UPDATE passkeys SET counter = ${BigInt(newCounter)}, last_used_at = now()
    WHERE id = ${passkey.id} AND (counter < ${BigInt(newCounter)} OR (counter = 0 AND ${BigInt(newCounter)} = 0))`);
  return taken === 1;
}

