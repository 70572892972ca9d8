import { readFileSync } from 'node:fs';
import { issueApiKey } from '../lib/auth/apiKeys';
import { signUp } from './dashboardSession';
import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

test('the invoices and transactions lists download as CSV with the filters on screen', async ({ page, stack }) => {
  const { app } = stack;
  const { email } = await signUp(page, app.baseUrl);
  const merchant = await app.prisma.merchant.update({ where: { email }, data: { targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' } });
  const key = await issueApiKey(app.prisma, merchant.id, 'e2e export');
  for (const [order, currencies] of [['=1+1', ['TRX']], ['usdt-1', ['USDT']], ['usdt-2', ['USDT']]] as const) {
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 5, currencies, order_id: order } });
    expect(res.status).toBe(200);
  }

  await page.getByRole('link', { name: 'Invoices' }).click();
  const table = page.getByRole('table', { name: 'Invoices' });
  await expect(table.getByRole('row')).toHaveCount(4);
  await page.getByLabel('Currency').selectOption('USDT');
  await expect(table.getByRole('row')).toHaveCount(3);
  await expectAccessible(page, 'the invoices list filtered by token');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^invoices-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.split('\r\n').slice(0, -1);
  expect(lines[0]).toMatch(/^\uFEFFid,created_at,status,type,amount_usd,/);
  expect(lines.slice(1).map((l) => l.split(',')[13])).toEqual(['usdt-2', 'usdt-1']);

  await page.getByLabel('Currency').selectOption('');
  await expect(table.getByRole('row')).toHaveCount(4);
  const [all] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  const everything = readFileSync((await all.path())!, 'utf8');
  expect(everything.split('\r\n').slice(0, -1)).toHaveLength(4);
  expect(everything).toContain(",'=1+1,");
  await screenshotBothSizes(page, 'dashboard-export');

  await page.getByRole('link', { name: 'Transactions' }).click();
  // The Export link of the page being left stays clickable until the new page is there.
  await page.waitForURL(/\/dashboard\/transactions/);
  await expect(page.getByText('Nothing found')).toBeVisible();
  await expectAccessible(page, 'an empty transactions list');
  const [transactions] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  expect(transactions.suggestedFilename()).toMatch(/^transactions-/);
  expect(readFileSync((await transactions.path())!, 'utf8')).toBe('\uFEFFcreated_at,trn_hash,invoice,type,currency,amount,from_address,to_address,event_id,aml_status,aml_risk_score,aml_risk_level,network_cost_trx,group\r\n');
});
