import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import { createInvoiceInDashboard, signInSeededMerchant } from './dashboardSession';
import { devnetPay, expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

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

  await test.step('a merchant with a target wallet signs in', async () => {
    // Seeded and signed in, not signed up: sign-ups are limited per address, and the stack's other specs use them.
    await signInSeededMerchant(page, app, WALLET, 'release');
  });

  let invoiceId = 0;
  await test.step('create an invoice and cancel it', async () => {
    invoiceId = await createInvoiceInDashboard(page, '12.5');
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
    await screenshotBothSizes(page, 'dashboard-held');
    await expectAccessible(page, 'the transactions list with held payments to release');
  });

  const releasedRow = (amount: string) => table.getByRole('row').filter({ hasText: `${amount} TRX` }).filter({ has: page.getByTestId('release-outcome') });
  const releaseDialog = (amount: string) => page.getByRole('dialog', { name: `Release ${amount} TRX held on invoice #${invoiceId}` });

  await test.step('Forward the first from its labelled dialog: the row says so, and links the transfer that reached the wallet', async () => {
    await heldRow('30').getByRole('button', { name: 'Release 30 TRX…' }).click();
    const dialog = releaseDialog('30');
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('Held because: invoice canceled');
    await expect(dialog.getByRole('radio', { name: /Forward to your payout wallet/ })).toBeChecked();
    await expect(dialog.getByLabel('Return to address')).toHaveCount(0);
    await screenshotBothSizes(page, 'dashboard-release-dialog', { fullPage: false });
    await expectAccessible(page, 'the release dialog');
    await dialog.getByRole('button', { name: 'Forward 30 TRX' }).click();
    await expect(dialog).toBeHidden();
    await expect(heldRow('30')).toHaveCount(0);
    // At once: released, in progress; then, once the worker's forward is final, forwarded to the wallet.
    await expect(releasedRow('30')).toContainText(/Released: (being )?forwarded/);
    await expect.poll(async () => (await app.prisma.transaction.findFirst({ where: { invoiceId, type: 'PAYMENT', amountUnits: 30n * TRX } }))?.paymentState, { timeout: 60_000 }).toBe('SETTLED');
    await expect(async () => {
      await page.reload();
      await expect(releasedRow('30')).toContainText(`Released: forwarded to ${WALLET.slice(0, 6)}`, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await releasedRow('30').getByRole('link', { name: 'See the transfer' }).click();
    await expect(page).toHaveURL(/\/dashboard\/transactions\?search=[0-9a-f]{64}$/);
    await expect(table.getByRole('row')).toHaveCount(2);
    await expect(table.getByRole('row').filter({ hasText: 'Transfer out' }).filter({ hasText: WALLET.slice(0, 6) })).toHaveCount(1);
    // A client-side navigation (the list's filters live in the URL): back to the whole list by its link.
    await page.getByRole('link', { name: 'Transactions' }).click();
    await expect(page).toHaveURL(/\/dashboard\/transactions$/);
  });

  await test.step('Return the second to an address the merchant names, checked first: not a contract, a valid address', async () => {
    await heldRow('20').getByRole('button', { name: 'Release 20 TRX…' }).click();
    const dialog = releaseDialog('20');
    await dialog.getByRole('radio', { name: /Return to an address/ }).check();
    const field = dialog.getByLabel('Return to address');
    await field.fill(devnet.usdtContract);
    await dialog.getByRole('button', { name: 'Return 20 TRX' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('This address is a smart contract, not a wallet: TRX sent to it is refused by the network and USDT sent to it is lost. Enter a wallet address.');
    await field.fill('Tnot-an-address');
    await dialog.getByRole('button', { name: 'Return 20 TRX' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Enter a valid Tron address (T...).');
    await screenshotBothSizes(page, 'dashboard-release-dialog-refused', { fullPage: false });
    await expectAccessible(page, 'the release dialog refusing an address');
    await field.fill(returnTo);
    await dialog.getByRole('button', { name: 'Return 20 TRX' }).click();
    await expect(dialog).toBeHidden();
    await expect(heldRow('20')).toHaveCount(0);
    await expect(releasedRow('20')).toContainText(/Released: being returned|Released: returned/);
    await expect.poll(async () => (await app.prisma.transaction.findFirst({ where: { invoiceId, type: 'PAYMENT', amountUnits: 20n * TRX } }))?.paymentState, { timeout: 60_000 }).toBe('REFUNDED');
    await expect.poll(() => chain.getTrxBalance(returnTo), { timeout: 30_000 }).toBeGreaterThan(18n * TRX);
    await expect(async () => {
      await page.reload();
      await expect(releasedRow('20')).toContainText(`Released: returned to ${returnTo.slice(0, 6)}`, { timeout: 1_000 });
      await expect(table.getByRole('row').filter({ hasText: 'Transfer out' }).filter({ hasText: returnTo.slice(0, 6) })).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 30_000 });
    await expect(releasedRow('20').getByRole('link', { name: 'See the transfer' })).toBeVisible();
    await screenshotBothSizes(page, 'dashboard-released');
    await expectAccessible(page, 'the transactions list after the releases');
  });

  // Released funds do not change the invoice: it stays canceled.
  await page.getByRole('table', { name: 'Transactions' }).getByRole('link', { name: `#${invoiceId}` }).first().click();
  await expect(page.getByTestId('invoice-status')).toHaveText('Canceled');
});
