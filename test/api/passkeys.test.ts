/**
 * Passkeys as a second factor (issue 40, lib/auth/passkeys.ts): enrolment, sign-in with a passkey
 * after the password, each challenge good once, only the user's own credential, the signature
 * counter that must grow, re-authentication with a passkey, removing one (which asks for the second
 * factor), recovery codes with a passkey alone, TOTP beside a passkey and the operator's reset. The
 * app and PostgreSQL are real; the passkeys' answers are made by a software authenticator
 * (test/helpers/webauthn.ts) as a browser's would be, and checked by @simplewebauthn/server.
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
import { SoftAuthenticator } from '../helpers/webauthn';
import { scriptArgs } from '../helpers/scripts';

const PASSWORD = 'correct horse battery';

type Options = { challenge_id: number; options: { challenge: string; rpId?: string; rp: { id?: string }; user: { id: string }; excludeCredentials?: { id: string }[]; authenticatorSelection?: Record<string, unknown> } };

describe('passkeys (issue 40)', () => {
  let app: TestApp;
  // Every sign-in is "old" here (a 0-minute window), so each money-moving change asks again.
  let strict: TestApp;
  const newEmail = () => `passkey-${randomBytes(5).toString('hex')}@example.com`;

  before(async () => {
    app = await startApp();
    strict = await startApp({ DASHBOARD_REAUTH_MINUTES: '0', MASTER_KEY: app.env.MASTER_KEY! });
  });
  after(async () => {
    await strict?.stop();
    await app?.stop();
  });

  /** The dashboard's origin as the browser sees it: the base URL the app is configured with (NEXTAUTH_URL, else PUBLIC_BASE_URL, else localhost and PORT). */
  const originOf = (on: TestApp) => `http://localhost:${new URL(on.baseUrl).port}`;

  /** A passkey's answer to a sign-in challenge, as the sign-in form sends it. */
  async function assertion(on: TestApp, authenticator: SoftAuthenticator, browser = new DashboardSession(on.baseUrl), credential = authenticator.credentials.at(-1)): Promise<string> {
    const res = await browser.request('/api/passkeys/options', { method: 'POST' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { challenge_id, options } = res.json as Options;
    return JSON.stringify({ challenge_id, response: authenticator.authenticate(options, credential) });
  }

  /** A merchant signed in with its password that added a passkey: its authenticator, the recovery codes answered, its session. */
  async function enrolled(on: TestApp = app, headers: Record<string, string> = {}): Promise<{ email: string; authenticator: SoftAuthenticator; recovery: string[]; browser: DashboardSession }> {
    const email = newEmail();
    await registerTestMerchant(on.prisma, { email, password: PASSWORD });
    const browser = new DashboardSession(on.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    const authenticator = new SoftAuthenticator(originOf(on));
    const added = await addPasskey(browser, authenticator, { 'x-confirm-password': PASSWORD, ...headers });
    assert.equal(added.status, 201, added.text);
    return { email, authenticator, recovery: (added.json as { recovery_codes: string[] }).recovery_codes, browser };
  }

  async function addPasskey(browser: DashboardSession, authenticator: SoftAuthenticator, headers: Record<string, string> = {}, name?: string) {
    const opts = await browser.api('/settings/two-factor/passkeys/options', 'POST', undefined, headers);
    assert.equal(opts.status, 200, opts.text);
    const { challenge_id, options } = opts.json as Options;
    return browser.api('/settings/two-factor/passkeys', 'POST', { challenge_id, response: authenticator.register(options), ...(name && { name }) });
  }

  it('enrols a passkey for the dashboard as relying party, answers the recovery codes once, and lists it', async () => {
    const email = newEmail();
    await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    const authenticator = new SoftAuthenticator(originOf(app));
    const opts = await browser.api('/settings/two-factor/passkeys/options', 'POST');
    assert.equal(opts.status, 200, opts.text);
    const { challenge_id, options } = opts.json as Options;
    assert.equal(options.rp.id, 'localhost', "the dashboard's hostname");
    assert.equal(options.authenticatorSelection?.residentKey, 'required');
    assert.deepEqual(options.excludeCredentials, []);
    const response = authenticator.register(options);
    const wrongOrigin = await browser.api('/settings/two-factor/passkeys', 'POST', { challenge_id, response: new SoftAuthenticator('https://evil.example').register(options) });
    assert.equal(wrongOrigin.status, 400, 'made on another site');
    assert.deepEqual(Object.keys((wrongOrigin.json as { errors: object }).errors), ['response']);
    assert.equal((await browser.api('/settings/two-factor/passkeys', 'POST', { challenge_id, response })).status, 409, 'the challenge was used up by the refused answer');

    const added = await addPasskey(browser, authenticator, {}, 'Laptop');
    assert.equal(added.status, 201, added.text);
    assert.equal(added.headers['cache-control'], 'no-store');
    const { passkey, recovery_codes } = added.json as { passkey: { id: number; name: string; created_at: string; last_used_at: null }; recovery_codes: string[] };
    assert.equal(passkey.name, 'Laptop');
    assert.equal(recovery_codes.length, 10, 'the first second factor: recovery codes, as TOTP gives');
    const state = (await browser.api('/settings/two-factor')).json;
    assert.deepEqual(state, { on: true, totp: 'off', recovery_codes_left: 10, passkeys: [passkey] });
    const renamed = await browser.api(`/settings/two-factor/passkeys/${passkey.id}`, 'PATCH', { name: ' Work laptop ' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.json, { ...passkey, name: 'Work laptop' });
    assert.equal((await browser.api(`/settings/two-factor/passkeys/${passkey.id}`, 'PATCH', { name: '' })).status, 400);
    assert.equal((await browser.api('/settings/two-factor/passkeys/999999', 'PATCH', { name: 'x' })).status, 404);

    // A second passkey: the first is excluded, and no new recovery codes (the ones given stay good).
    const again = await browser.api('/settings/two-factor/passkeys/options', 'POST');
    assert.deepEqual((again.json as Options).options.excludeCredentials?.map((c) => c.id), [authenticator.credentials.at(-1)!.id.toString('base64url')]);
    const second = await addPasskey(browser, new SoftAuthenticator(originOf(app)));
    assert.equal(second.status, 201, second.text);
    assert.deepEqual((second.json as { recovery_codes: string[] }).recovery_codes, []);
    assert.equal((await browser.api('/settings/two-factor')).json.recovery_codes_left, 10);

    const { id: merchantId } = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });
    const rows = await app.prisma.auditLog.findMany({ where: { merchantId, action: 'two_factor_changed' }, orderBy: { id: 'asc' } });
    assert.deepEqual(rows.map((r) => [r.actor, r.subject, r.before, r.after]), [
      [email, 'passkey', { passkeys: 0 }, { passkeys: 1, added: 'Laptop' }],
      [email, 'passkey', { name: 'Laptop' }, { name: 'Work laptop' }],
      [email, 'passkey', { passkeys: 1 }, { passkeys: 2, added: 'Passkey' }],
    ]);
  });

  it('asks for a passkey (or a code) after the right password, and takes each challenge once', async () => {
    const { email, authenticator } = await enrolled();
    const fresh = () => new DashboardSession(app.baseUrl);
    const passwordOnly = fresh();
    assert.equal(await passwordOnly.signIn(email, PASSWORD), 'TwoFactorRequired');
    assert.equal((await passwordOnly.api('/settings')).status, 401);
    assert.equal(await fresh().signIn(email, 'wrong password!!', { passkey: await assertion(app, authenticator) }), 'CredentialsSignin', 'a passkey does not help a wrong password');

    const good = await assertion(app, authenticator);
    const browser = fresh();
    assert.equal(await browser.signIn(email, PASSWORD, { passkey: good }), null);
    assert.equal((await browser.api('/settings')).status, 200);
    const { passkeys } = (await browser.api('/settings/two-factor')).json as { passkeys: { last_used_at: string | null }[] };
    assert.ok(passkeys[0]!.last_used_at, 'last used: now');
    assert.equal(await fresh().signIn(email, PASSWORD, { passkey: good }), 'WrongTwoFactorCode', 'the same answer again: its challenge is used up');

    // An answer to a challenge the server never gave, under a real challenge's id.
    const { challenge_id } = (await fresh().request('/api/passkeys/options', { method: 'POST' })).json as Options;
    const forged = JSON.stringify({ challenge_id, response: authenticator.authenticate({ challenge: randomBytes(32).toString('base64url') }) });
    assert.equal(await fresh().signIn(email, PASSWORD, { passkey: forged }), 'WrongTwoFactorCode', 'not the challenge of that id');
    const { challenge_id: id2, options } = (await fresh().request('/api/passkeys/options', { method: 'POST' })).json as Options;
    const elsewhere = JSON.stringify({ challenge_id: id2, response: authenticator.authenticate(options, undefined, { origin: 'https://evil.example' }) });
    assert.equal(await fresh().signIn(email, PASSWORD, { passkey: elsewhere }), 'WrongTwoFactorCode', 'signed for another site');
    assert.equal(await fresh().signIn(email, PASSWORD, { passkey: 'not json' }), 'WrongTwoFactorCode');
    assert.equal(await fresh().signIn(email, PASSWORD, { passkey: await assertion(app, authenticator) }), null, 'a new challenge signs in again');

    const { id: merchantId } = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });
    const failed = await app.prisma.auditLog.findMany({ where: { merchantId, action: 'sign_in_failed' } });
    assert.deepEqual(failed.map((r) => r.subject), [null, 'passkey', 'passkey', 'passkey', 'passkey'], 'each wrong answer is a failed sign-in in the log');
  });

  it("refuses another user's passkey and a signature counter that went back", async () => {
    const alice = await enrolled();
    const bob = await enrolled();
    assert.equal(await new DashboardSession(app.baseUrl).signIn(alice.email, PASSWORD, { passkey: await assertion(app, bob.authenticator) }), 'WrongTwoFactorCode', "bob's passkey is not alice's");
    assert.equal(await new DashboardSession(app.baseUrl).signIn(alice.email, PASSWORD, { passkey: await assertion(app, alice.authenticator) }), null);
    // A cloned authenticator: its counter behind the one the server last saw.
    const credential = alice.authenticator.credentials[0]!;
    const seen = credential.counter;
    credential.counter = seen - 1;
    assert.equal(await new DashboardSession(app.baseUrl).signIn(alice.email, PASSWORD, { passkey: await assertion(app, alice.authenticator) }), 'WrongTwoFactorCode', 'the same counter again');
    const row = await app.prisma.passkey.findFirstOrThrow({ where: { user: { email: alice.email } } });
    assert.equal(row.counter, BigInt(seen), 'the refused answer did not move the counter');
  });

  it('asks for the password and a passkey (or a recovery code) before a money-moving change once the sign-in is old', async () => {
    const { email, authenticator, recovery, browser } = await enrolled(strict);
    const move = (headers: Record<string, string>) => browser.api('/keys', 'POST', { label: 'shop' }, headers);
    const keys = async () => strict.prisma.apiKey.count({ where: { merchant: { email } } });
    const before = await keys();
    const bare = await move({ 'x-confirm-password': PASSWORD });
    assert.equal(bare.status, 403);
    assert.equal(bare.json.reason, 'two_factor', 'the password alone moves nothing');
    const header = async () => encodeURIComponent(await assertion(strict, authenticator, browser));
    assert.equal((await move({ 'x-confirm-password': 'wrong password!!', 'x-confirm-passkey': await header() })).status, 403, 'a wrong password with a good passkey');
    const used = await header();
    const ok = await move({ 'x-confirm-password': PASSWORD, 'x-confirm-passkey': used });
    assert.equal(ok.status, 200, ok.text);
    const replay = await move({ 'x-confirm-password': PASSWORD, 'x-confirm-passkey': used });
    assert.equal(replay.status, 403, 'an answer is good once');
    assert.equal(replay.json.detail, 'Wrong password or passkey.');
    assert.equal((await move({ 'x-confirm-password': PASSWORD, 'x-confirm-code': recovery[0]! })).status, 200, 'a recovery code serves a passkey user too');
    assert.equal(await keys(), before + 2);
  });

  it('removes a passkey only with the password and the second factor, however recent the sign-in; the last one takes the recovery codes with it', async () => {
    const { email, authenticator, browser } = await enrolled();
    const { passkeys } = (await browser.api('/settings/two-factor')).json as { passkeys: { id: number }[] };
    const remove = (headers: Record<string, string>) => browser.api(`/settings/two-factor/passkeys/${passkeys[0]!.id}`, 'DELETE', undefined, headers);
    const bare = await remove({});
    assert.equal(bare.status, 403, 'a fresh session alone removes nothing');
    assert.equal(bare.json.code, 'reauth_required');
    assert.equal(bare.json.reason, 'two_factor');
    assert.equal((await remove({ 'x-confirm-password': PASSWORD })).status, 403);
    assert.equal((await browser.api('/settings/two-factor/passkeys/999999', 'DELETE', undefined, { 'x-confirm-password': PASSWORD, 'x-confirm-passkey': encodeURIComponent(await assertion(app, authenticator, browser)) })).status, 404);
    const off = await remove({ 'x-confirm-password': PASSWORD, 'x-confirm-passkey': encodeURIComponent(await assertion(app, authenticator, browser)) });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.json, { on: false, totp: 'off', recovery_codes_left: 0, passkeys: [] });
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD), null, 'the password alone signs in again');
    assert.deepEqual((await app.prisma.user.findUniqueOrThrow({ where: { email } })).totpRecoveryHashes, []);
  });

  it('signs in with a recovery code when the passkey is not at hand, each code once', async () => {
    const { email, recovery } = await enrolled();
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD, recovery[2]!), null);
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD, recovery[2]!), 'WrongTwoFactorCode');
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD, '123456'), 'WrongTwoFactorCode', 'no authenticator app: a TOTP-shaped code is no factor');
  });

  it('keeps the recovery codes when TOTP is turned off while a passkey remains, and gives none anew when TOTP joins a passkey', async () => {
    const { email, recovery, browser } = await enrolled();
    const { secret } = (await browser.api('/settings/two-factor/totp', 'POST')).json as { secret: string };
    assert.equal((await browser.api('/settings/two-factor')).json.recovery_codes_left, 10, 'starting TOTP left the codes alone');
    const confirmed = await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: generateSync({ secret }) });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.deepEqual(confirmed.json, { recovery_codes: [] });
    const off = await browser.api('/settings/two-factor/totp/disable', 'POST', { code: recovery[0]! });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.json.totp, 'off');
    assert.equal(off.json.recovery_codes_left, 9, 'the passkey remains, and with it the other codes');
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD), 'TwoFactorRequired');
    assert.equal(await new DashboardSession(app.baseUrl).signIn(email, PASSWORD, recovery[1]!), null);
  });

  it("lets the operator's reset remove the passkeys too, ending the user's sessions", async () => {
    const { email, browser } = await enrolled();
    const { stdout } = await promisify(execFile)(process.execPath, scriptArgs('scripts/two-factor-reset.ts', email), { env: { ...process.env, ...app.env } });
    assert.match(stdout, /two-factor sign-in turned off; every session ended/);
    assert.equal(await app.prisma.passkey.count({ where: { user: { email } } }), 0);
    assert.equal((await browser.api('/settings')).status, 401);
    const again = new DashboardSession(app.baseUrl);
    assert.equal(await again.signIn(email, PASSWORD), null);
    assert.deepEqual((await again.api('/settings/two-factor')).json, { on: false, totp: 'off', recovery_codes_left: 0, passkeys: [] });
    const { id: merchantId } = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });
    const reset = await app.prisma.auditLog.findFirstOrThrow({ where: { merchantId, action: 'two_factor_changed', actorKind: 'system' } });
    assert.deepEqual([reset.before, reset.after], [{ totp: 'off', passkeys: 1 }, { totp: 'off', passkeys: 0, sessions_ended: true }]);
  });
});
