import { signInSeededMerchant } from './dashboardSession';
import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

// Scoped API keys (issue 40): a read-only key made in the browser reads and is refused a write,
// the list shows each key's scopes, a key with none ticked is refused under the checkboxes; axe at
// desktop and phone size (expectAccessible checks both).
test('a merchant creates a read-only API key, sees its scopes listed, and the API keeps it to reading', async ({ page, stack }) => {
  const { app } = stack;
  // Seeded with a key made without scopes, as every key before issue 40: it holds all four.
  await signInSeededMerchant(page, app, WALLET, 'keys');
  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByRole('list', { name: 'Scopes of test' }).getByRole('listitem')).toHaveText(['read', 'invoices:write', 'payouts:write', 'refunds:write']);

  const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Create key' }) });
  const scope = (name: string) => form.getByRole('checkbox', { name: new RegExp(`^${name} `) });
  for (const name of ['read', 'invoices:write', 'payouts:write', 'refunds:write']) await expect(scope(name), `${name} is ticked by default`).toBeChecked();

  await test.step('none ticked is refused, said under the checkboxes', async () => {
    await page.getByLabel('Label').fill('nothing');
    for (const name of ['read', 'invoices:write', 'payouts:write', 'refunds:write']) await scope(name).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(form.getByRole('alert')).toHaveText('Choose at least one scope of read, invoices:write, payouts:write, refunds:write.');
    await expectAccessible(page, 'the API key form refusing a key without scopes');
  });

  let key = '';
  await test.step('a read-only key', async () => {
    await page.getByLabel('Label').fill('reporting');
    await scope('read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    key = (await page.getByLabel('New API key').textContent()) ?? '';
    expect(key).toMatch(/^tk_/);
    await expect(page.getByRole('list', { name: 'Scopes of reporting' }).getByRole('listitem')).toHaveText(['read']);
    await screenshotBothSizes(page, 'dashboard-api-key-scopes');
    await expectAccessible(page, 'the API keys page with a read-only key');
  });

  await test.step('the key reads, and a write is refused naming the scope', async () => {
    expect((await app.api('/merchant', key)).status).toBe(200);
    const refused = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ detail: 'This API key lacks the scope invoices:write.' });
  });

  await test.step('the list keeps the scopes after a reload', async () => {
    await page.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await expect(page.getByRole('list', { name: 'Scopes of reporting' }).getByRole('listitem')).toHaveText(['read']);
    // The form is back to every scope ticked.
    for (const name of ['read', 'invoices:write', 'payouts:write', 'refunds:write']) await expect(scope(name)).toBeChecked();
  });

  await test.step("the key kept to one server's address: calls from elsewhere are refused, saying which list", async () => {
    const row = page.getByRole('row').filter({ hasText: 'reporting' });
    await expect(row).toContainText('Wherever the store allows');
    await row.getByRole('button', { name: 'Change the allowed addresses of reporting' }).click();
    const ips = row.getByRole('form', { name: 'Allowed addresses of reporting' });
    await ips.getByLabel('Allowed IP addresses').fill('127.0.0.2, nonsense');
    await ips.getByRole('button', { name: 'Save' }).click();
    await expect(ips.getByRole('alert')).toHaveText('"nonsense" is not an IP address or CIDR range');
    await expectAccessible(page, 'a key\'s allowed addresses refusing a bad one');
    await ips.getByLabel('Allowed IP addresses').fill('127.0.0.2');
    await ips.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('list', { name: 'Allowed addresses of reporting' }).getByRole('listitem')).toHaveText(['127.0.0.2']);
    expect((await app.api('/merchant', key, { localAddress: '127.0.0.2' })).status).toBe(200);
    const refused = await app.api('/merchant', key);
    expect(refused.status).toBe(403);
    expect(refused.json.reason).toBe("IP address not allowed: 127.0.0.1 is not in this API key's IP allow-list (dashboard, API keys).");
  });
});
