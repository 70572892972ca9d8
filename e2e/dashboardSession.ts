import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, expectAccessible } from './fixtures';

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
  // Creating the account hashes the password (bcrypt, cost 12): on a busy 2-core machine that alone can take many seconds.
  await expect(page).toHaveURL(/\/dashboard\/settings$/, { timeout: 60_000 });
  await expect(page.getByText(account.email)).toBeVisible();
  return account;
}

/** Sets the payout wallet on the settings page the dashboard opens on after sign-up. */
export async function setTargetWallet(page: Page, wallet: string): Promise<void> {
  await page.getByLabel('Target wallet address').fill(wallet);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
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
