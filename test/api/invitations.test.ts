import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '@/lib/auth/passwords';
import { AppError } from '@/lib/errors';
import { acceptInvitation, INVITATION_DAYS, INVITATION_NOT_FOUND, invitationInfo } from '@/lib/merchants/invitations';
import { registerTestMerchant } from '../helpers/accounts';
import { startApp, type TestApp } from '../helpers/app';
import { DashboardSession } from '../helpers/session';

/**
 * Invitations (issue 40, docs/dashboard.md "Members and roles"): an owner invites an e-mail with a
 * role; the one-time link is answered to the owner where no SMTP is configured and e-mailed (queued)
 * where it is; accepting makes a new user with the password it chooses, or adds an existing user
 * who gives its password; a link is good once and for INVITATION_DAYS.
 */

const PASSWORD = 'correct horse battery';
let n = 0;
const newEmail = (what: string) => `inv-${what}-${Date.now()}-${n++}@example.com`;
const tokenOf = (link: string) => decodeURIComponent(link.slice(link.indexOf('/invite/') + '/invite/'.length));
const refused = (detail: string) => (err: unknown) => err instanceof AppError && (err.detail === detail || JSON.stringify(err.fieldErrors ?? {}).includes(detail));

describe('invitations (issue 40)', () => {
  let app: TestApp;
  let storeId: number;
  let ownerEmail: string;
  let owner: DashboardSession;

  before(async () => {
    app = await startApp();
    ownerEmail = newEmail('owner');
    storeId = (await registerTestMerchant(app.prisma, { email: ownerEmail, password: PASSWORD })).id;
    owner = new DashboardSession(app.baseUrl);
    assert.equal(await owner.signIn(ownerEmail, PASSWORD), null);
  });
  after(async () => {
    await app?.stop();
  });

  async function invite(email: string, role: string) {
    const res = await owner.api('/members/invitations', 'POST', { email, role });
    assert.equal(res.status, 200, res.text);
    return res.json as { id: number; email: string; role: string; emailed: boolean; link: string | null; expires_at: string };
  }

  it('answers the link to the owner without SMTP, lists the invitation and logs member_invited', async () => {
    const email = newEmail('new');
    const sent = await invite(email.toUpperCase(), 'finance');
    assert.equal(sent.email, email, 'e-mails are kept lower-case');
    assert.equal(sent.emailed, false);
    // On the dashboard's configured origin (NEXTAUTH_URL, else PUBLIC_BASE_URL; here localhost on the server's port).
    assert.match(sent.link ?? '', new RegExp(`^http://localhost:${new URL(app.baseUrl).port}/invite/[A-Za-z0-9_-]{43}$`));
    const days = (Date.parse(sent.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > INVITATION_DAYS - 0.01 && days <= INVITATION_DAYS, String(days));
    const pending = await owner.api('/members/invitations');
    assert.deepEqual((pending.json.results as { email: string; role: string }[]).map((i) => [i.email, i.role]).slice(0, 1), [[email, 'finance']]);
    const [row] = await app.prisma.auditLog.findMany({ where: { merchantId: storeId, action: 'member_invited', subject: email } });
    assert.deepEqual([row?.actor, row?.after], [ownerEmail, { email, role: 'finance', expires_at: sent.expires_at }]);
    const stored = await app.prisma.memberInvitation.findFirstOrThrow({ where: { id: sent.id } });
    assert.ok(!stored.tokenHash.includes(tokenOf(sent.link!)), 'only the hash of the token is kept');
  });

  it('refuses to invite a member, a bad e-mail or an unknown role', async () => {
    assert.equal((await owner.api('/members/invitations', 'POST', { email: ownerEmail, role: 'admin' })).status, 409);
    const bad = await owner.api('/members/invitations', 'POST', { email: 'not an e-mail', role: 'boss' });
    assert.equal(bad.status, 400, bad.text);
    assert.ok(bad.json.errors.email && bad.json.errors.role, bad.text);
  });

  it('makes a new user with the password it chooses, once; the member signs in to the store with its role', async () => {
    const email = newEmail('fresh');
    const { link } = await invite(email, 'support');
    const token = tokenOf(link!);
    assert.deepEqual(await invitationInfo(app.prisma, token), { store: ownerEmail, email, role: 'support', userExists: false });
    await assert.rejects(acceptInvitation(app.prisma, token, 'short', '198.51.100.1'), refused('Use at least 10 characters.'));
    const accepted = await acceptInvitation(app.prisma, token, PASSWORD, '198.51.100.1');
    assert.deepEqual(accepted, { email, merchantId: storeId });
    await assert.rejects(acceptInvitation(app.prisma, token, PASSWORD, null), refused(INVITATION_NOT_FOUND), 'good once');
    await assert.rejects(invitationInfo(app.prisma, token), refused(INVITATION_NOT_FOUND));
    const member = new DashboardSession(app.baseUrl);
    assert.equal(await member.signIn(email, PASSWORD), null);
    assert.deepEqual((await member.api('/members')).json.you.role, 'support');
    assert.equal((await member.api('/keys')).status, 403);
    const [row] = await app.prisma.auditLog.findMany({ where: { merchantId: storeId, action: 'member_added', actor: email } });
    assert.deepEqual([row?.clientIp, row?.after], ['198.51.100.1', { email, role: 'support' }]);
    assert.equal((await owner.api('/members/invitations')).json.results.some((i: { email: string }) => i.email === email), false, 'no longer pending');
  });

  it('adds an existing user, of another store, once it gives its password; it then has two stores', async () => {
    const email = newEmail('existing');
    const other = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    const { link } = await invite(email, 'developer');
    const token = tokenOf(link!);
    assert.equal((await invitationInfo(app.prisma, token)).userExists, true);
    await assert.rejects(acceptInvitation(app.prisma, token, 'not the password', null), refused('Wrong password: give the password you sign in with.'));
    assert.equal((await invitationInfo(app.prisma, token)).email, email, 'a wrong password leaves the invitation as it was');
    await acceptInvitation(app.prisma, token, PASSWORD, null);
    const user = await app.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: { orderBy: { id: 'asc' } } } });
    assert.deepEqual(user.memberships.map((m) => [m.merchantId, m.role]), [[other.id, 'owner'], [storeId, 'developer']]);
    assert.ok(await verifyPassword(PASSWORD, user.passwordHash), 'its password unchanged');
  });

  it('cancels a pending invitation: its link is no longer valid and the cancel is logged; an accepted, unknown or other store\'s one is 404', async () => {
    const email = newEmail('canceled');
    const { id, link, expires_at } = await invite(email, 'developer');
    const canceled = await owner.api(`/members/invitations/${id}`, 'DELETE');
    assert.equal(canceled.status, 204, canceled.text);
    await assert.rejects(invitationInfo(app.prisma, tokenOf(link!)), refused(INVITATION_NOT_FOUND));
    await assert.rejects(acceptInvitation(app.prisma, tokenOf(link!), PASSWORD, null), refused(INVITATION_NOT_FOUND));
    assert.ok(!((await owner.api('/members/invitations')).json.results as { id: number }[]).some((i) => i.id === id), 'no longer listed');
    const [row] = await app.prisma.auditLog.findMany({ where: { merchantId: storeId, action: 'member_invitation_canceled', subject: email } });
    assert.deepEqual([row?.actor, row?.before, row?.after], [ownerEmail, { email, role: 'developer', expires_at }, null]);
    assert.deepEqual((await owner.api(`/members/invitations/${id}`, 'DELETE')).json, { detail: 'Invitation not found.' });

    const accepted = await invite(newEmail('accepted'), 'support');
    await acceptInvitation(app.prisma, tokenOf(accepted.link!), PASSWORD, null);
    assert.equal((await owner.api(`/members/invitations/${accepted.id}`, 'DELETE')).status, 404, 'an accepted invitation is a membership now: removed as a member');

    const otherEmail = newEmail('other-owner');
    await registerTestMerchant(app.prisma, { email: otherEmail, password: PASSWORD });
    const other = new DashboardSession(app.baseUrl);
    assert.equal(await other.signIn(otherEmail, PASSWORD), null);
    const mine = await invite(newEmail('mine'), 'finance');
    assert.equal((await other.api(`/members/invitations/${mine.id}`, 'DELETE')).status, 404, "another store's invitation");
    assert.ok(await invitationInfo(app.prisma, tokenOf(mine.link!)), 'and it stays valid');
  });

  it('refuses an expired link', async () => {
    const email = newEmail('late');
    const { id, link } = await invite(email, 'finance');
    await app.prisma.memberInvitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await assert.rejects(invitationInfo(app.prisma, tokenOf(link!)), refused(INVITATION_NOT_FOUND));
    await assert.rejects(acceptInvitation(app.prisma, tokenOf(link!), PASSWORD, null), refused(INVITATION_NOT_FOUND));
    assert.equal(await app.prisma.user.count({ where: { email } }), 0);
  });

  it('shows the invitation page for a good link and says why for a bad one', async () => {
    const { link } = await invite(newEmail('page'), 'admin');
    const page = await new DashboardSession(app.baseUrl).request(new URL(link!).pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, /You are invited to/);
    assert.match(page.text, /Choose a password/);
    const bad = await new DashboardSession(app.baseUrl).request('/invite/not-a-token');
    assert.match(bad.text, /This invitation link is not valid/);
  });
});

describe('invitations with SMTP configured', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'team@pay.example.com' });
  });
  after(async () => {
    await app?.stop();
  });

  it('e-mails the link (queued with the invitation) and does not show it', async () => {
    const ownerEmail = newEmail('smtp-owner');
    const store = await registerTestMerchant(app.prisma, { email: ownerEmail, password: PASSWORD });
    const owner = new DashboardSession(app.baseUrl);
    assert.equal(await owner.signIn(ownerEmail, PASSWORD), null);
    const email = newEmail('smtp');
    const res = await owner.api('/members/invitations', 'POST', { email, role: 'finance' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.json.emailed, res.json.link], [true, null]);
    const [mail] = await app.prisma.mailOutbox.findMany({ where: { merchantId: store.id } });
    assert.equal(mail?.toAddress, email);
    assert.match(mail?.body ?? '', new RegExp(`http://localhost:${new URL(app.baseUrl).port}/invite/[A-Za-z0-9_-]{43}`));
    assert.match(mail?.body ?? '', /with the role finance/);
  });
});
