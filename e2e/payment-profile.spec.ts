import { randomBytes } from 'node:crypto';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { linkKeyWith } from '@/lib/invoices/linkKey';
import { signUp } from './dashboardSession';
import { expect, expectAccessibleHere, screenshotPath, test, type Stack } from './fixtures';

// Issue 26: the merchant sets a profile in the dashboard's settings; the payment page shows the
// store name and logo in its header, and the contact wherever it tells the customer to contact
// the merchant. At desktop and phone size; the worker's end states are written to the database.

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const PAYER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const LOGO = 'https://cdn.mug-shop.example/logo.svg';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="#4f46e5"/><text x="20" y="27" font-size="18" text-anchor="middle" fill="#fff" font-family="sans-serif">M</text></svg>';

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 360, height: 740 }, isMobile: true },
] as const;

const pageUrl = (stack: Stack, id: number) => `${stack.app.baseUrl}/payment/${id}?k=${linkKeyWith(stack.app.env.MASTER_KEY!, id)}`;

async function createInvoice(stack: Stack, key: string): Promise<{ id: number; address: string }> {
  const res = await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: 'MUG-1' } });
  expect(res.status).toBe(200);
  return { id: res.json.id as number, address: res.json.address as string };
}

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });

    test('the profile set in Settings names the store and gives the contact on expired and underpaid pages', async ({ page, stack }) => {
      const { app } = stack;
      // The customer's browser loads the logo from the merchant's https host (the server never does); served here.
      let logoLoads = 0;
      await page.route(LOGO, (route) => {
        logoLoads++;
        return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG });
      });
      const { email } = await test.step('sign up', () => signUp(page, app.baseUrl));
      // Invoices need a wallet to forward to; set as the settings form would (another spec's subject).
      const merchant = await app.prisma.merchant.update({ where: { email }, data: { targetWalletAddress: WALLET } });
      const key = await issueApiKey(app.prisma, merchant.id, 'e2e');

      await test.step('an invoice before the profile keeps the current wording', async () => {
        const before = await createInvoice(stack, key);
        await app.prisma.invoice.update({ where: { id: before.id }, data: { status: 'TIMEOUT', expiredAt: new Date(Date.now() - 60_000) } });
        await page.goto(pageUrl(stack, before.id));
        await expect(page.getByRole('heading', { name: 'This invoice has expired' })).toBeVisible();
        await expect(page.getByText('ask the merchant for a new invoice')).toBeVisible();
        await expect(page.getByTestId('merchant-contact')).toHaveCount(0);
        await expect(page.getByTestId('store')).toHaveCount(0);
        await expectAccessibleHere(page, 'an expired invoice without a profile');
        await page.goto(`${app.baseUrl}/dashboard/settings`);
      });

      await test.step('a bad logo URL is refused by name; the profile saves', async () => {
        await page.getByLabel('Store name').fill('Mug Shop');
        await page.getByLabel('Support e-mail').fill('help@mug-shop.example');
        await page.getByLabel('Support page URL').fill('https://mug-shop.example/help');
        await page.getByLabel('Logo URL (https)').fill('https://127.0.0.1/logo.svg');
        await page.getByRole('button', { name: 'Save profile' }).click();
        await expect(page.getByText('The logo URL must name a public host, not an IP address or localhost.')).toBeVisible();
        await expectAccessibleHere(page, 'settings refusing a logo URL');
        await page.getByLabel('Logo URL (https)').fill(LOGO);
        await page.getByRole('button', { name: 'Save profile' }).click();
        await expect(page.getByText('Profile saved.')).toBeVisible();
        await page.screenshot({ path: screenshotPath(`profile-settings-${size.name}`), fullPage: true });
        await expect.poll(async () => (await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).storeName).toBe('Mug Shop');
      });

      await test.step('an expired invoice names the store and says how to reach it', async () => {
        const expired = await createInvoice(stack, key);
        await app.prisma.invoice.update({ where: { id: expired.id }, data: { status: 'TIMEOUT', expiredAt: new Date(Date.now() - 60_000) } });
        await page.goto(pageUrl(stack, expired.id));
        await expect(page).toHaveTitle(`Payment #${expired.id} · Mug Shop`);
        const store = page.getByTestId('store');
        await expect(store).toContainText('Mug Shop');
        await expect(store.getByRole('img', { name: 'Logo of Mug Shop' })).toBeVisible();
        await expect.poll(() => page.getByRole('img', { name: 'Logo of Mug Shop' }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
        expect(logoLoads).toBeGreaterThan(0);
        await expect(page.getByRole('heading', { name: `Payment #${expired.id}` })).toBeVisible();
        const contact = page.getByTestId('merchant-contact');
        await expect(contact).toContainText('Contact Mug Shop');
        await expect(contact.getByRole('link', { name: 'help@mug-shop.example' })).toHaveAttribute('href', 'mailto:help@mug-shop.example');
        await expect(contact.getByRole('link', { name: 'Support page' })).toHaveAttribute('href', 'https://mug-shop.example/help');
        await page.screenshot({ path: screenshotPath(`profile-expired-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'an expired invoice with the store and its contact');
      });

      await test.step('an underpaid invoice does too', async () => {
        const underpaid = await createInvoice(stack, key);
        const txid = randomBytes(32).toString('hex');
        await app.prisma.transaction.create({
          data: {
            merchantId: merchant.id, invoiceId: underpaid.id, type: 'PAYMENT', trnHash: txid, chainRef: `${txid}:0`, fromAddress: PAYER,
            toAddress: underpaid.address, amountUnits: 15_000_000n, currency: 'TRX', paymentState: 'SETTLED', blockNumber: 1,
          },
        });
        await app.prisma.invoiceCurrency.updateMany({ where: { invoiceId: underpaid.id }, data: { receivedUnits: 15_000_000n } });
        await app.prisma.invoice.update({ where: { id: underpaid.id }, data: { status: 'UNDERPAID' } });
        await page.goto(pageUrl(stack, underpaid.id));
        await expect(page.getByRole('heading', { name: 'Underpaid' })).toBeVisible();
        await expect(page.getByTestId('missing')).toHaveText('25 TRX');
        const contact = page.getByTestId('merchant-contact');
        await expect(contact.getByRole('link', { name: 'help@mug-shop.example' })).toHaveAttribute('href', 'mailto:help@mug-shop.example');
        await page.screenshot({ path: screenshotPath(`profile-underpaid-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'an underpaid invoice with the store\'s contact');
      });

      await test.step('a guessed id (no link key) shows nothing of the store', async () => {
        const invoice = await app.prisma.invoice.findFirstOrThrow({ where: { merchantId: merchant.id, status: 'UNDERPAID' } });
        await page.goto(`${app.baseUrl}/payment/${invoice.id}`);
        await expect(page.getByRole('heading', { name: 'Underpaid' })).toBeVisible();
        await expect(page.getByText('Mug Shop')).toHaveCount(0);
        await expect(page.getByTestId('merchant-contact')).toHaveCount(0);
        await expectAccessibleHere(page, 'the limited view of an underpaid invoice');
      });
    });
  });
}
