import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import { signUp } from './dashboardSession';
import { devnetPay, expect, expectAccessible, screenshotPath, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const TRX = 1_000_000n;

// Held by the real worker, released in the browser, moved by the real worker; the books are
// reconciled when the stack is torn down (e2e/fixtures.ts).
test.use({ withWorker: true });
// Two payments held, released and moved on the devnet: more than the default minute.
test.setTimeout(180_000);

test('a merchant sees funds held by the worker and releases them: one forwarded, one returned to an address', async ({ page, stack }) => {
  const { app, devnet } = stack;
  const returnTo = (TronWeb.createRandom() as unknown as { address: string }).address;
  const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });

  await test.step('sign up and set the target wallet', async () => {
    await signUp(page, app.baseUrl);
    await page.getByLabel('Target wallet address').fill(WALLET);
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  });

  let invoiceId = 0;
  await test.step('create an invoice and cancel it', async () => {
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('link', { name: 'New invoice' }).click();
    const form = page.getByRole('form', { name: 'New invoice' });
    await form.getByLabel('Amount (USD)').fill('12.5');
    await form.getByRole('button', { name: 'Create invoice' }).click();
    const created = page.getByRole('status').filter({ hasText: 'Created invoice' });
    await expect(created).toBeVisible();
    invoiceId = Number((await created.getByRole('link').textContent())?.replace(/\D/g, ''));
    await created.getByRole('link').click();
    await expect(page.getByRole('heading', { name: `Invoice #${invoiceId}` })).toBeVisible();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Cancel invoice' }).click();
    await expect(page.getByTestId('invoice-status')).toHaveText('Canceled');
    await expectAccessible(page, 'a canceled invoice');
  });

  // The customer pays the canceled invoice twice anyway: the worker holds both for the merchant to decide.
  const { address } = await app.prisma.invoice.findUniqueOrThrow({ where: { id: invoiceId } });
  await devnetPay(stack, address, '30', 'TRX');
  await devnetPay(stack, address, '20', 'TRX');

  const table = page.getByRole('table', { name: 'Transactions' });
  const heldRow = (amount: string) => table.getByRole('row').filter({ hasText: `${amount} TRX` }).filter({ hasText: 'HELD' });
  await test.step('the transactions page shows both held, with the reason', async () => {
    await page.getByRole('link', { name: 'Transactions' }).click();
    await expect(async () => {
      await page.reload();
      await expect(heldRow('30')).toHaveCount(1, { timeout: 1_000 });
      await expect(heldRow('20')).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 60_000 });
    await expect(heldRow('30')).toContainText('invoice canceled');
    await page.screenshot({ path: screenshotPath('dashboard-held'), fullPage: true });
    await expectAccessible(page, 'the transactions list with held payments to release');
  });

  await test.step('Forward the first: it reaches the target wallet', async () => {
    await heldRow('30').getByRole('button', { name: 'Forward' }).click();
    await expect(heldRow('30')).toHaveCount(0);
    await expect.poll(async () => (await app.prisma.transaction.findFirst({ where: { invoiceId, type: 'PAYMENT', amountUnits: 30n * TRX } }))?.paymentState, { timeout: 60_000 }).toBe('SETTLED');
    await expect(async () => {
      await page.reload();
      await expect(table.getByRole('row').filter({ hasText: 'Transfer out' }).filter({ hasText: WALLET })).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
  });

  await test.step('Return the second to an address the merchant names', async () => {
    const row = heldRow('20');
    await row.getByLabel('Return to address').fill(returnTo);
    await row.getByRole('button', { name: 'Return' }).click();
    await expect(heldRow('20')).toHaveCount(0);
    await expect.poll(async () => (await app.prisma.transaction.findFirst({ where: { invoiceId, type: 'PAYMENT', amountUnits: 20n * TRX } }))?.paymentState, { timeout: 60_000 }).toBe('REFUNDED');
    await expect.poll(() => chain.getTrxBalance(returnTo), { timeout: 30_000 }).toBeGreaterThan(18n * TRX);
    await expect(async () => {
      await page.reload();
      await expect(table.getByRole('row').filter({ hasText: 'Transfer out' }).filter({ hasText: returnTo })).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('dashboard-released'), fullPage: true });
    await expectAccessible(page, 'the transactions list after the releases');
  });

  // Released funds do not change the invoice: it stays canceled.
  await page.getByRole('table', { name: 'Transactions' }).getByRole('link', { name: `#${invoiceId}` }).first().click();
  await expect(page.getByTestId('invoice-status')).toHaveText('Canceled');
});
