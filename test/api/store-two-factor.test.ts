/**
 * A store that requires two-factor sign-in of every member (issue 40, lib/auth/storeTwoFactor.ts):
 * only an owner turns it on, and only with a second factor of its own; a member without one signs
 * in but is answered only its own login until it sets one up; the Team list says who has one; the
 * change is in the audit log. The app and PostgreSQL are real; codes are made with otplib from the
 * secret the dashboard showed, as an authenticator app does.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { generateSync } from 'otplib';
import { systemActor } from '@/lib/audit/record';
import { passwordHash } from '../helpers/accounts';
import type { MemberRole } from '@/lib/auth/roles';
import { DASHBOARD_ROUTES } from '@/lib/http/dashboard/routes';
import { changeMembership } from '@/lib/merchants/members';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import { DashboardSession } from '../helpers/session';
import { SoftAuthenticator } from '../helpers/webauthn';

const PASSWORD = 'correct horse battery';
const REQUIRED = 'This store requires two-factor sign-in: set it up for your login in Settings, Two-factor sign-in, first.';

describe('a store that requires two-factor sign-in (issue 40)', () => {
  let app: TestApp;
  let storeId: number;
  let owner: DashboardSession;
  const newEmail = (what: string) => `store-2fa-${what}-${randomBytes(4).toString('hex')}@example.com`;

  /** A new user of `role` in the store, signed in with its password. */
  async function member(role: MemberRole): Promise<{ email: string; browser: DashboardSession }> {
    const email = newEmail(role);
    const user = await app.prisma.user.create({ data: { email, passwordHash: await passwordHash(PASSWORD) } });
    await changeMembership(app.prisma, storeId, { kind: 'added', userId: user.id, role }, systemActor('store two-factor test'));
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    return { email, browser };
  }

  /** Turns two-factor sign-in on for the signed-in user, as the Settings card does. */
  async function enrol(browser: DashboardSession): Promise<void> {
    const start = await browser.api('/settings/two-factor/totp', 'POST', undefined, { 'x-confirm-password': PASSWORD });
    assert.equal(start.status, 200, start.text);
    const { secret } = start.json as { secret: string };
    const confirmed = await browser.api('/settings/two-factor/totp/confirm', 'POST', { code: generateSync({ secret }) });
    assert.equal(confirmed.status, 200, confirmed.text);
  }

  const required = async () => (await app.prisma.merchant.findUniqueOrThrow({ where: { id: storeId } })).requireTwoFactor;

  before(async () => {
    app = await startApp();
    const email = newEmail('owner');
    storeId = (await registerTestMerchant(app.prisma, { email, password: PASSWORD })).id;
    owner = new DashboardSession(app.baseUrl);
    assert.equal(await owner.signIn(email, PASSWORD), null);
  });
  after(async () => {
    await app?.stop();
  });

  it('is turned on only by an owner, and only once the owner signs in with a second factor itself', async () => {
    assert.equal((await owner.api('/settings')).json.require_two_factor, false, 'off for every store to begin with');
    const lockout = await owner.api('/settings', 'PATCH', { require_two_factor: true });
    assert.equal(lockout.status, 409, lockout.text);
    assert.equal(lockout.json.detail, 'Turn on two-factor sign-in for your own login first (Settings, Two-factor sign-in): the store would otherwise lock you out.');
    assert.equal(await required(), false);

    const admin = await member('admin');
    await enrol(admin.browser);
    const refused = await admin.browser.api('/settings', 'PATCH', { require_two_factor: true });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.detail, "Requiring two-factor sign-in needs the role 'owner'; your role in this store is 'admin'.");
    assert.equal((await admin.browser.api('/settings', 'PATCH', { require_two_factor: false })).status, 200, 'saving it as it is stays an admin\'s save');
    assert.equal(await required(), false);
    const notABoolean = await owner.api('/settings', 'PATCH', { require_two_factor: 'yes' });
    assert.equal(notABoolean.status, 400);
    assert.equal(notABoolean.json.detail, 'require_two_factor: Must be a boolean.');

    await enrol(owner);
    const on = await owner.api('/settings', 'PATCH', { require_two_factor: true });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.json.require_two_factor, true);
    assert.equal(await required(), true);
    const logged = await app.prisma.auditLog.findFirstOrThrow({ where: { merchantId: storeId, action: 'settings_changed' }, orderBy: { id: 'desc' } });
    assert.deepEqual([logged.before, logged.after], [{ require_two_factor: false }, { require_two_factor: true }]);
  });

  it("answers a member without a second factor only its own login until it sets one up, and the Team list says who has one", async () => {
    assert.equal(await required(), true, 'turned on by the test before');
    // The sign-in itself goes through: the member could never set a second factor up otherwise.
    const support = await member('support');
    for (const path of ['/invoices', '/transactions', '/settings', '/members', '/webhooks']) {
      const res = await support.browser.api(path);
      assert.equal(res.status, 403, `${path}: ${res.text}`);
      assert.deepEqual(res.json, { detail: REQUIRED, reason: 'two_factor_required' }, path);
    }
    // Its own login: the two-factor card, the stores it belongs to.
    assert.equal((await support.browser.api('/settings/two-factor')).status, 200);
    assert.equal((await support.browser.api('/stores')).status, 200);
    // A refused change changes nothing, whatever the role would allow.
    const finance = await member('finance');
    const before = await app.prisma.invoice.count({ where: { merchantId: storeId } });
    const create = await finance.browser.api('/invoices', 'POST', { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
    assert.equal(create.status, 403, create.text);
    assert.equal(await app.prisma.invoice.count({ where: { merchantId: storeId } }), before);

    const listed = (await owner.api('/members')).json.results as { email: string; two_factor: boolean }[];
    assert.equal(listed.find((m) => m.email === support.email)?.two_factor, false);
    assert.ok(listed.filter((m) => m.two_factor).length >= 2, 'the owner and the admin have one');

    await enrol(support.browser);
    assert.equal((await support.browser.api('/invoices')).status, 200, 'in, at the next request');
    assert.equal(((await owner.api('/members')).json.results as { email: string; two_factor: boolean }[]).find((m) => m.email === support.email)?.two_factor, true);

    // A passkey is a second factor as TOTP is (hasSecondFactor): a member with only one is in.
    const developer = await member('developer');
    assert.equal((await developer.browser.api('/invoices')).status, 403);
    const options = await developer.browser.api('/settings/two-factor/passkeys/options', 'POST');
    assert.equal(options.status, 200, options.text);
    const { challenge_id, options: creation } = options.json as { challenge_id: number; options: { challenge: string; rp: { id?: string }; user: { id: string } } };
    const authenticator = new SoftAuthenticator(`http://localhost:${new URL(app.baseUrl).port}`);
    const added = await developer.browser.api('/settings/two-factor/passkeys', 'POST', { challenge_id, response: authenticator.register(creation) });
    assert.equal(added.status, 201, added.text);
    assert.equal((await developer.browser.api('/invoices')).status, 200, 'in with a passkey alone');
    assert.equal(((await owner.api('/members')).json.results as { email: string; two_factor: boolean }[]).find((m) => m.email === developer.email)?.two_factor, true);

    // Turned off by the owner, the member without a second factor is in again.
    assert.equal((await owner.api('/settings', 'PATCH', { require_two_factor: false })).status, 200);
    assert.equal((await finance.browser.api('/invoices')).status, 200);
  });

  it("lets through, before the second factor, exactly the routes of one's own login", () => {
    const open = DASHBOARD_ROUTES.filter((r) => r.ownLogin).map((r) => `${r.method} ${r.path}`);
    for (const row of open) assert.match(row, /^(GET|POST|PATCH|DELETE) \/(settings\/(password|two-factor)|stores$)/, row);
    assert.ok(open.includes('GET /settings/two-factor') && open.includes('POST /settings/two-factor/totp/confirm') && open.includes('GET /stores'));
  });
});
