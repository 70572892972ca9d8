import { readFileSync } from 'node:fs';
import { signUp } from './dashboardSession';
import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

// The audit log page (issue 40, docs/dashboard.md "Audit log"): a change made in the dashboard is
// there at once, by the e-mail signed in with; the action filter narrows it; the CSV is the filtered list.
test('the audit log shows a settings change, filters by action and downloads as CSV', async ({ page, stack }) => {
  const { email } = await signUp(page, stack.app.baseUrl);

  await page.getByLabel('Store name').fill('Audit Test Shop');
  await page.getByRole('button', { name: 'Save profile' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Profile saved.' })).toBeVisible();

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).click();
  await page.waitForURL(/\/dashboard\/audit/);
  const table = page.getByRole('table', { name: 'Audit log entries' });
  const changed = table.getByRole('row').filter({ hasText: 'Settings changed' });
  await expect(changed).toHaveCount(1);
  await expect(changed).toContainText(email);
  await expect(changed).toContainText('"store_name":"Audit Test Shop"');
  // Signing up signed the new account in: that is in the log too, below the change (newest first).
  await expect(table.getByRole('row').nth(1)).toContainText('Settings changed');
  await expect(table.getByRole('row').filter({ hasText: 'Signed in' })).toHaveCount(1);
  await expectAccessible(page, 'the audit log');

  await page.getByLabel('Action').selectOption('sign_in');
  await expect(table.getByRole('row').filter({ hasText: 'Settings changed' })).toHaveCount(0);
  await expect(table.getByRole('row').filter({ hasText: 'Signed in' })).toHaveCount(1);
  await expect(page).toHaveURL(/[?&]action=sign_in(&|$)/);

  await page.getByLabel('Action').selectOption('settings_changed');
  await expect(table.getByRole('row').filter({ hasText: 'Signed in' })).toHaveCount(0);
  await expectAccessible(page, 'the audit log filtered by action');
  await screenshotBothSizes(page, 'dashboard-audit');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = readFileSync((await download.path())!, 'utf8').split('\r\n').slice(0, -1);
  expect(lines[0]).toBe('\uFEFFcreated_at,action,actor_kind,actor,api_key_id,client_ip,subject,before,after');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(`,settings_changed,dashboard,${email},`);
  expect(lines[1]).toContain('""store_name"":""Audit Test Shop""');

  // A range of days before the change: nothing.
  await page.getByLabel('To (UTC day)').fill('2000-01-01');
  await expect(page.getByText('Nothing found')).toBeVisible();
});
