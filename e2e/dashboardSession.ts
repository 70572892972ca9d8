import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { passwordHash } from '../test/helpers/accounts';
import type { TestApp } from '../test/helpers/app';
import { expect, expectAccessible, test } from './fixtures';

export interface Account {
  email: string;
  password: string;
}

/** Signs a new merchant up in the browser; the dashboard then opens on its settings. */
export async function signUp(page: Page, baseUrl: string): Promise<Account> {
  const account = { email: `e2e-${randomBytes(4).toString('hex')}@example.com`, password: 'a long enough password' };
  await page.goto(`${baseUrl}/signup`);
  await expectAccessible(page, 'the sign-up page');
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByLabel('Repeat password').fill(account.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  // Creating the account hashes the password and sets up the store: on a busy 2-core machine that can take seconds.
  await expect(page).toHaveURL(/\/dashboard\/settings$/, { timeout: 60_000 });
  await expect(page.getByText(account.email)).toBeVisible();
  return account;
}

/** Creates a SINGLE invoice of `amountUsd` from the invoices page, opens its page and returns its id. */
export async function createInvoiceInDashboard(page: Page, amountUsd: string): Promise<number> {
  await page.getByRole('link', { name: 'Invoices' }).click();
  await page.getByRole('link', { name: 'New invoice' }).click();
  const form = page.getByRole('form', { name: 'New invoice' });
  await form.getByLabel('Amount (USD)').fill(amountUsd);
  await form.getByRole('button', { name: 'Create invoice' }).click();
  const created = page.getByRole('status').filter({ hasText: 'Created invoice' });
  await expect(created).toBeVisible();
  const invoiceId = Number((await created.getByRole('link').textContent())?.replace(/\D/g, ''));
  await created.getByRole('link').click();
  await expect(page.getByRole('heading', { name: `Invoice #${invoiceId}` })).toBeVisible();
  return invoiceId;
}

/**
 * A merchant with a wallet, signed in through the sign-in page. Seeded, not signed up: the stack
 * is shared by the specs of a Playwright worker and sign-ups are limited to 5 per IP address in
 * 15 minutes (docs/dashboard.md), which the specs that walk through signing up already use.
 */
export async function signInSeededMerchant(page: Page, app: TestApp, wallet: string, label: string) {
  const { merchant, key } = await app.createMerchant({ targetWallet: wallet });
  const email = `e2e-${label}-${merchant.id}@example.com`;
  const password = 'a long enough password';
  await app.prisma.merchant.update({ where: { id: merchant.id }, data: { email } });
  // The store's owner (migration 0101: a user apart from the store) signs in with the same e-mail.
  await app.prisma.user.updateMany({ where: { memberships: { some: { merchantId: merchant.id, role: 'owner' } } }, data: { email, passwordHash: await passwordHash(password) } });
  await signIn(page, app.baseUrl, email, password);
  return { merchant: { ...merchant, email }, key };
}

/** Signs a user in on the sign-in page (no second factor asked); the dashboard opens on its overview. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
}

/**
 * A test whose app counts every sign-in as old (the stack's `strictReauth`, DASHBOARD_REAUTH_MINUTES=0),
 * so each money-moving change asks for the password (and second factor) again. The specs that use it
 * share one stack (a devnet and the web server, no worker); `app` is its web server.
 */
export const strictReauthTest = test.extend<object, { app: TestApp }>({
  strictReauth: [true, { scope: 'worker' }],
  app: [async ({ stack }, use) => use(stack.app), { scope: 'worker' }],
});
