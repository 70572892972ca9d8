import { systemActor } from '@/lib/audit/record';
import { generateSync } from 'otplib';
import { passwordHash } from '../test/helpers/accounts';
import { changeMembership } from '@/lib/merchants/members';
import { signIn, signInSeededMerchant } from './dashboardSession';
import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const PASSWORD = 'a long enough password';

// The Team page (issue 40, docs/dashboard.md "Members and roles"): a support member sees the team
// read-only and is refused what its role does not allow; the owner changes its role and removes it,
// and the removed member's next request is signed out; axe at desktop and phone size.
test('an owner changes a member’s role and removes it; the member sees the team read-only and loses access', async ({ page, browser, stack }) => {
  const { app } = stack;
  const { merchant } = await signInSeededMerchant(page, app, WALLET, 'team');
  const email = `e2e-support-${merchant.id}@example.com`;
  const user = await app.prisma.user.create({ data: { email, passwordHash: await passwordHash(PASSWORD) } });
  await changeMembership(app.prisma, merchant.id, { kind: 'added', userId: user.id, role: 'support' }, systemActor('e2e'));

  const memberContext = await browser.newContext();
  const member = await memberContext.newPage();
  await test.step('the support member signs in and sees the team read-only', async () => {
    await signIn(member, app.baseUrl, email, PASSWORD);
    // The header links to the pages the role can use: no API keys, no audit log for support.
    await expect(member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link')).toHaveText(['Overview', 'Invoices', 'Transactions', 'Webhooks', 'Settings', 'Team']);
    await member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).click();
    await expect(member.getByText('Your role here is support: only an owner changes the team.')).toBeVisible();
    const rows = member.getByRole('table', { name: 'Members' }).getByRole('row');
    await expect(rows.filter({ hasText: merchant.email })).toContainText('owner');
    await expect(rows.filter({ hasText: email })).toContainText('support');
    await expect(member.getByRole('button', { name: /^Remove / })).toHaveCount(0);
    await expectAccessible(member, 'the Team page, read-only');
  });

  await test.step('the owner changes the role and sees it', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).click();
    await page.waitForURL(/\/dashboard\/team/);
    const select = page.getByRole('combobox', { name: `Role of ${email}` });
    await expect(select).toHaveValue('support');
    await expectAccessible(page, 'the Team page');
    await screenshotBothSizes(page, 'dashboard-team');
    await select.selectOption('developer');
    await expect(select).toHaveValue('developer');
    await expect.poll(async () => (await app.prisma.membership.findFirstOrThrow({ where: { userId: user.id } })).role).toBe('developer');
    // The member's next page has the developer's links: the API keys, still no audit log.
    await member.reload();
    await expect(member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link')).toHaveText(['Overview', 'Invoices', 'Transactions', 'Webhooks', 'API keys', 'Settings', 'Team']);
  });

  await test.step('the last owner cannot demote itself: said on the page', async () => {
    await page.getByRole('combobox', { name: `Role of ${merchant.email}` }).selectOption('admin');
    await expect(page.getByRole('alert').filter({ hasText: 'A store needs an owner' })).toBeVisible();
    await expect(page.getByRole('combobox', { name: `Role of ${merchant.email}` })).toHaveValue('owner');
  });

  await test.step('the owner removes the member, whose next request is signed out', async () => {
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: `Remove ${email}` }).click();
    await expect(page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: email })).toHaveCount(0);
    const answer = await member.evaluate(async () => (await fetch('/dashboard/api/invoices')).status);
    expect(answer).toBe(401);
  });
  await memberContext.close();
});

// Invitations (issue 40): without SMTP the owner is shown the link; whoever opens it chooses a
// password and is signed in to the store with the role it was invited with; axe on the invitation page.
test('an owner invites by e-mail and cancels a wrong invitation; the link, opened elsewhere, makes a member with its role', async ({ page, browser, stack }) => {
  const { app } = stack;
  const { merchant } = await signInSeededMerchant(page, app, WALLET, 'invite');
  const email = `e2e-invited-${merchant.id}@example.com`;
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).click();
  await page.waitForURL(/\/dashboard\/team/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('finance');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  const link = (await page.getByRole('status').getByLabel('Invitation link').textContent()) ?? '';
  expect(link).toContain('/invite/');
  await expect(page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: email })).toContainText('finance');
  await expectAccessible(page, 'the Team page with an invitation made');

  // A second invitation, to the wrong address: canceled from its row (after the browser's confirm), its link dead.
  const wrong = `e2e-wrong-${merchant.id}@example.com`;
  await page.getByLabel('E-mail').fill(wrong);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('status').getByLabel('Invitation link')).not.toHaveText(link);
  const wrongLink = (await page.getByRole('status').getByLabel('Invitation link').textContent()) ?? '';
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: `Cancel the invitation of ${wrong}` }).click();
  await expect(page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: wrong })).toHaveCount(0);
  await expect(page.getByRole('table', { name: 'Pending invitations' }).getByRole('row').filter({ hasText: email })).toHaveCount(1);

  const invitedContext = await browser.newContext();
  const invited = await invitedContext.newPage();
  await invited.goto(link);
  await expect(invited.getByText(`as finance, with the e-mail ${email}`)).toBeVisible();
  await expectAccessible(invited, 'the invitation page');
  await screenshotBothSizes(invited, 'invitation');
  await invited.getByLabel('Choose a password').fill(PASSWORD);
  await invited.getByLabel('Repeat password').fill(PASSWORD);
  await invited.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(invited).toHaveURL(/\/dashboard$/, { timeout: 60_000 });
  await expect(invited.getByText(email)).toBeVisible();
  expect(await invited.evaluate(async () => (await fetch('/dashboard/api/members')).json())).toMatchObject({ you: { role: 'finance' } });

  await invited.goto(link);
  await expect(invited.getByRole('alert').filter({ hasText: 'This invitation link is not valid' })).toBeVisible();
  await invited.goto(wrongLink);
  await expect(invited.getByRole('alert').filter({ hasText: 'This invitation link is not valid' })).toBeVisible();
  await invitedContext.close();
});

// A user in two stores (issue 40): the header's "Store" selector lists both with the role in each,
// and switching shows the other store, in which the user's role there applies.
test('a member of two stores switches between them from the header', async ({ page, stack }) => {
  const { app } = stack;
  const first = await app.createMerchant({ targetWallet: WALLET });
  const second = await app.createMerchant({ targetWallet: WALLET });
  await app.prisma.merchant.update({ where: { id: first.merchant.id }, data: { storeName: 'First Shop' } });
  await app.prisma.merchant.update({ where: { id: second.merchant.id }, data: { storeName: 'Second Shop' } });
  const email = `e2e-two-stores-${first.merchant.id}@example.com`;
  const user = await app.prisma.user.create({ data: { email, passwordHash: await passwordHash(PASSWORD) } });
  await changeMembership(app.prisma, first.merchant.id, { kind: 'added', userId: user.id, role: 'support' }, systemActor('e2e'));
  await changeMembership(app.prisma, second.merchant.id, { kind: 'added', userId: user.id, role: 'developer' }, systemActor('e2e'));

  await signIn(page, app.baseUrl, email, PASSWORD);
  const store = page.getByRole('combobox', { name: 'Store' });
  await expect(store.getByRole('option')).toHaveText(['First Shop (support)', 'Second Shop (developer)']);
  await expect(store).toHaveValue(String(first.merchant.id));
  await expectAccessible(page, 'the header with the store selector');

  await store.selectOption(String(second.merchant.id));
  await expect(store).toHaveValue(String(second.merchant.id));
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).click();
  await expect(page.getByText('Your role here is developer')).toBeVisible();
});

// A store that requires two-factor sign-in (issue 40, lib/auth/storeTwoFactor.ts): the owner, with
// its own second factor, ticks the Team page's box; a member without one signs in to a notice and
// refusals, sets it up in Settings, and the notice goes and the store's pages answer at once.
test('an owner requires two-factor sign-in; a member without it is kept to its settings until it sets one up', async ({ page, browser, stack }) => {
  const { app } = stack;
  const { merchant } = await signInSeededMerchant(page, app, WALLET, 'require-2fa');
  const email = `e2e-no-2fa-${merchant.id}@example.com`;
  const user = await app.prisma.user.create({ data: { email, passwordHash: await passwordHash(PASSWORD) } });
  await changeMembership(app.prisma, merchant.id, { kind: 'added', userId: user.id, role: 'support' }, systemActor('e2e'));

  await test.step('the owner, with an authenticator app of its own, requires it of every member', async () => {
    // The owner's own enrolment, as the Settings card makes it (e2e/dashboard-two-factor.spec.ts shows that card).
    const secret = await page.evaluate(async (password) => {
      const res = await fetch('/dashboard/api/settings/two-factor/totp', { method: 'POST', headers: { 'x-confirm-password': password } });
      return ((await res.json()) as { secret: string }).secret;
    }, 'a long enough password');
    const confirmed = await page.evaluate(
      async (code) => (await fetch('/dashboard/api/settings/two-factor/totp/confirm', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) })).status,
      generateSync({ secret }),
    );
    expect(confirmed).toBe(200);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).click();
    const card = page.getByRole('region', { name: 'Two-factor sign-in for every member' });
    await card.getByRole('checkbox', { name: 'Require two-factor sign-in' }).click();
    await expect(card.getByRole('checkbox', { name: 'Require two-factor sign-in' })).toBeChecked();
    await expect.poll(async () => (await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).requireTwoFactor).toBe(true);
    const rows = page.getByRole('table', { name: 'Members' }).getByRole('row');
    await expect(rows.filter({ hasText: merchant.email })).toContainText('On');
    await expect(rows.filter({ hasText: email })).toContainText('Off');
    await expectAccessible(page, 'the Team page requiring two-factor sign-in');
  });

  const memberContext = await browser.newContext();
  const member = await memberContext.newPage();
  await test.step('the member without it signs in to a notice, and the store answers only its settings', async () => {
    await signIn(member, app.baseUrl, email, PASSWORD);
    const notice = member.getByRole('alert').filter({ hasText: 'This store requires two-factor sign-in.' });
    await expect(notice).toBeVisible();
    await member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Invoices' }).click();
    await expect(member.getByText('This store requires two-factor sign-in: set it up for your login in Settings, Two-factor sign-in, first.').first()).toBeVisible();
    await notice.getByRole('link', { name: 'Settings' }).click();
    await expect(member.getByRole('region', { name: 'Two-factor sign-in' })).toBeVisible();
    await expectAccessible(member, 'settings of a member kept out until it sets up two-factor sign-in');
  });

  await test.step('set up, the notice goes and the store answers', async () => {
    const card = member.getByRole('region', { name: 'Two-factor sign-in' });
    await card.getByRole('button', { name: 'Set up an authenticator app' }).click();
    // Signed in a moment ago: no password asked again (DASHBOARD_REAUTH_MINUTES).
    const form = card.getByRole('form', { name: 'Confirm the authenticator app' });
    const secret = (await form.locator('code').textContent())!.trim();
    await form.getByLabel('Code from the app').fill(generateSync({ secret }));
    await form.getByRole('button', { name: 'Turn on' }).click();
    await expect(card.getByTestId('two-factor-state')).toContainText('On');
    await expect(member.getByRole('alert').filter({ hasText: 'This store requires two-factor sign-in.' })).toHaveCount(0);
    await member.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Invoices' }).click();
    await expect(member.getByText('This store requires two-factor sign-in', { exact: false })).toHaveCount(0);
  });
  await memberContext.close();
});
