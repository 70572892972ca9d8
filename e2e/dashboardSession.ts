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
