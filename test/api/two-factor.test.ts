/**
 * Two-factor sign-in with an authenticator app (issue 40, lib/auth/twoFactor.ts): enrolment in two
 * steps, sign-in asking for the code, each code good once, recovery codes, re-authentication for a
 * money-moving change asking for the code too, and turning it off. The app and PostgreSQL are real;
 * the codes are made with otplib from the secret the dashboard showed, as an authenticator app does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { generateSync } from 'otplib';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import { DashboardSession } from '../helpers/session';
import { scriptArgs } from '../helpers/scripts';

const PASSWORD = 'correct horse battery';

/** The code an authenticator app shows `stepsAhead` 30-second steps from now (the server takes one step either side). */
const codeFor = (secret: string, stepsAhead = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

describe('two-factor sign-in (issue 40)', () => {
  let app: TestApp;
  // Every sign-in is "old" here (a 0-minute window), so each money-moving change asks again.
  let strict: TestApp;
  const newEmail = () => `2fa-${randomBytes(5).toString('hex')}@example.com`;

  before(async () => {
    app = await startApp();
    strict = await startApp({ DASHBOARD_REAUTH_MINUTES: '0', MASTER_KEY: app.env.MASTER_KEY! });
  });
  after(async () => {
    await strict?.stop();
    await app?.stop();
  });

  /** A merchant signed in with its password and enrolled: the secret its app holds and its recovery codes. */
  async function enrolled(on: TestApp = app): Promise<{ email: string; secret: string; recovery: string[]; browser: DashboardSession }> {
    const email = newEmail();
    await registerTestMerchant(on.prisma, { email, password: PASSWORD });
    const browser = new DashboardSession(on.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    const start = await browser.api('/settings/two-factor/totp', 'POST', undefined, { 'x-confirm-password': PASSWORD });
    assert.equal(start.status, 200, start.text);
    const { secret, otpauth_uri } = start.json as { secret: string; otpauth_uri: string };
    assert.equal(new URL(otpauth_uri).searchParams.get('secret'), secret);
    assert.equal(start.headers['cache-control'], 'no-store');
    const confirmed = await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: codeFor(secret) });
    assert.equal(confirmed.status, 200, confirmed.text);
    return { email, secret, recovery: (confirmed.json as { recovery_codes: string[] }).recovery_codes, browser };
  }

  it('turns on only once a code from the new secret is confirmed, and answers ten recovery codes once', async () => {
    const email = newEmail();
    await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    assert.deepEqual((await browser.api('/settings/two-factor')).json, { on: false, totp: 'off', recovery_codes_left: 0, passkeys: [] });
    assert.equal((await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: '123456' })).status, 409, 'nothing to confirm before the start');
    const { secret } = (await browser.api('/settings/two-factor/totp', 'POST')).json as { secret: string };
    assert.deepEqual((await browser.api('/settings/two-factor')).json, { on: false, totp: 'pending', recovery_codes_left: 0, passkeys: [] });
    // Pending is off: the password alone still signs in.
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD), null);
    const wrong = await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: codeFor(secret, 5) });
    assert.equal(wrong.status, 400);
    assert.deepEqual(Object.keys((wrong.json as { errors: object }).errors), ['code']);
    const empty = await browser.api('/settings/two-factor/totp/confirm', 'POST', {});
    assert.equal(empty.status, 400);
    assert.match(String(empty.json.detail), /^code: /);
    const ok = await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: codeFor(secret) });
    assert.equal(ok.status, 200, ok.text);
    const codes = (ok.json as { recovery_codes: string[] }).recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    assert.deepEqual((await browser.api('/settings/two-factor')).json, { on: true, totp: 'on', recovery_codes_left: 10, passkeys: [] });
    assert.equal((await browser.api('/settings/two-factor/totp', 'POST')).status, 409, 'a second enrolment while on');
    // Stored sealed, and the recovery codes only as hashes.
    const row = await app.prisma.user.findUniqueOrThrow({ where: { email } });
    assert.ok(row.totpSecretEnc && !row.totpSecretEnc.includes(secret));
    assert.ok(row.totpRecoveryHashes.every((h) => !codes.includes(h)));
  });

  it('asks for the code after the right password, takes each code once, and a recovery code once', async () => {
    const { email, secret, recovery } = await enrolled();
    const fresh = () => new DashboardSession(app.baseUrl);
    assert.equal(await fresh().signIn(email, 'wrong password!!', codeFor(secret, 1)), 'CredentialsSignin', 'a code does not help a wrong password');
    const passwordOnly = fresh();
    assert.equal(await passwordOnly.signIn(email, PASSWORD), 'TwoFactorRequired');
    assert.equal((await passwordOnly.api('/settings')).status, 401, 'no session from the password alone');
    assert.equal(await fresh().signIn(email, PASSWORD, codeFor(secret, 10)), 'WrongTwoFactorCode', "five minutes ahead: not this step's code");
    // The enrolment used this step's code: the next step's is new (an app shows it a little early when its clock runs ahead).
    const next = codeFor(secret, 1);
    const browser = fresh();
    assert.equal(await browser.signIn(email, PASSWORD, next), null);
    assert.equal((await browser.api('/settings')).status, 200);
    assert.equal(await fresh().signIn(email, PASSWORD, next), 'WrongTwoFactorCode', 'the same code again: replayed');
    assert.equal(await fresh().signIn(email, PASSWORD, codeFor(secret)), 'WrongTwoFactorCode', 'an older code than the last one taken');
    // A recovery code, typed in capitals with a space, signs in once.
    const typed = recovery[0]!.toUpperCase().replace('-', ' ');
    assert.equal(await fresh().signIn(email, PASSWORD, typed), null);
    assert.equal(await fresh().signIn(email, PASSWORD, recovery[0]!), 'WrongTwoFactorCode', 'a recovery code is used up');
    assert.deepEqual((await browser.api('/settings/two-factor')).json, { on: true, totp: 'on', recovery_codes_left: 9, passkeys: [] });
  });

  it('asks for the password and a code before a money-moving change once the sign-in is old', async () => {
    const { email, secret, recovery, browser } = await enrolled(strict);
    const move = (headers: Record<string, string>) => browser.api('/keys', 'POST', { label: 'shop' }, headers);
    const keys = async () => strict.prisma.apiKey.count({ where: { merchant: { email } } });
    const before = await keys();
    const bare = await move({});
    assert.equal(bare.status, 403);
    assert.equal(bare.json.code, 'reauth_required');
    assert.equal(bare.json.reason, 'two_factor');
    assert.match(String(bare.json.detail), /authenticator/);
    const passwordOnly = await move({ 'x-confirm-password': PASSWORD });
    assert.equal(passwordOnly.status, 403, 'the password alone moves nothing');
    assert.equal(passwordOnly.json.reason, 'two_factor');
    assert.equal((await move({ 'x-confirm-password': PASSWORD, 'x-confirm-code': 'aaaaa-aaaaa' })).status, 403, 'a wrong code');
    assert.equal((await move({ 'x-confirm-password': 'wrong password!!', 'x-confirm-code': recovery[1]! })).status, 403, 'a wrong password with a good code');
    assert.equal(await keys(), before, 'no refusal issued a key');
    const ok = await move({ 'x-confirm-password': PASSWORD, 'x-confirm-code': recovery[0]! });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(await keys(), before + 1);
    // The good recovery code given beside the wrong password was not used up by that refusal.
    assert.equal((await move({ 'x-confirm-password': PASSWORD, 'x-confirm-code': recovery[1]! })).status, 200);
    assert.equal((await move({ 'x-confirm-password': PASSWORD, 'x-confirm-code': codeFor(secret, 1) })).status, 200);
  });

  it('turns off with a code, after which the password alone signs in again', async () => {
    const { email, recovery, browser } = await enrolled();
    const wrong = await browser.api('/settings/two-factor/totp/disable', 'POST', { code: 'zzzzz-zzzzz' });
    assert.equal(wrong.status, 400);
    assert.deepEqual((await browser.api('/settings/two-factor')).json.totp, 'on');
    const off = await browser.api('/settings/two-factor/totp/disable', 'POST', { code: recovery[3]! });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.json, { on: false, totp: 'off', recovery_codes_left: 0, passkeys: [] });
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD), null);
    const row = await app.prisma.user.findUniqueOrThrow({ where: { email } });
    assert.equal(row.totpSecretEnc, null);
    assert.deepEqual(row.totpRecoveryHashes, []);
  });

  it("lets the operator turn it off for a merchant that lost its phone and its codes, ending the merchant's sessions", async () => {
    const { email, browser } = await enrolled();
    const reset = (who: string) => promisify(execFile)(process.execPath, scriptArgs('scripts/two-factor-reset.ts', who), { env: { ...process.env, ...app.env } });
    const { stdout } = await reset(email.toUpperCase());
    assert.match(stdout, /two-factor sign-in turned off; every session ended/);
    const { id: merchantId } = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });
    const rows = await app.prisma.auditLog.findMany({ where: { merchantId, action: 'two_factor_changed' }, orderBy: { id: 'asc' } });
    assert.deepEqual(rows.map((r) => [r.actorKind, r.actor, r.after]), [
      ['dashboard', email, { totp: 'on' }],
      ['system', 'npm run two-factor:reset', { totp: 'off', sessions_ended: true }],
    ], 'the enrolment and the reset are in the audit log');
    assert.equal((await browser.api('/settings')).status, 401, 'the session from before the reset is over');
    const again = new DashboardSession(app.baseUrl);
    assert.equal(await again.signIn(email, PASSWORD), null, 'the password alone signs in');
    assert.deepEqual((await again.api('/settings/two-factor')).json, { on: false, totp: 'off', recovery_codes_left: 0, passkeys: [] });
    await assert.rejects(reset('nobody@example.com'), (err: { code?: number; stderr?: string }) => err.code === 1 && /No account has the e-mail nobody@example.com/.test(err.stderr ?? ''));
  });
});
