import { test as base } from '@playwright/test';
import { startApp, type TestApp } from '../test/helpers/app';
import { signUp } from './dashboardSession';
import { expect, screenshotPath } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

// DASHBOARD_REAUTH_MINUTES=0: every sign-in counts as old, so each fund-moving change asks for the password.
const test = base.extend<object, { app: TestApp }>({
  app: [
    async ({}, use) => {
      const app = await startApp({ DASHBOARD_REAUTH_MINUTES: '0' });
      await use(app);
      await app.stop();
    },
    { scope: 'worker' },
  ],
});

test('a fund-moving change asks for the password, then the wallet change is announced', async ({ page, app }) => {
  const { password } = await signUp(page, app.baseUrl);

  await test.step('cancelling the password dialog changes nothing', async () => {
    await page.getByLabel('Target wallet address').fill(WALLET);
    await page.getByRole('button', { name: 'Save settings' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByText('This change needs your password.')).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByText('Confirm your password to make this change.')).toBeVisible();
  });

  await test.step('the password confirms the change; every page then says the wallet changed', async () => {
    await page.getByRole('button', { name: 'Save settings' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('This change needs your password.').fill(password);
    await page.screenshot({ path: screenshotPath('dashboard-reauth'), fullPage: true });
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('alert').filter({ hasText: 'Your payout wallet was changed' })).toContainText(WALLET);
  });

  await test.step('showing the webhook secret asks too; a wrong password is refused', async () => {
    await page.getByRole('button', { name: 'Show secret' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('This change needs your password.').fill('not the password');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByText('Wrong password.')).toBeVisible();
    await page.getByRole('button', { name: 'Show secret' }).click();
    await page.getByRole('dialog').getByLabel('This change needs your password.').fill(password);
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('button', { name: 'Hide secret' })).toBeVisible();
  });
});
