import type { Locator, Page } from '@playwright/test';
import { linkKeyWith } from '@/lib/invoices/linkKey';
import { startApp, type TestApp } from '../test/helpers/app';
import { devnetPay, expect, expectAccessibleHere, screenshotPath, SIZES, test } from './fixtures';

// Issue 38: the payment page's first screen. On a phone (390x844) the amount, the address with its
// copy button and the time left are on it without scrolling, with the wallet buttons; on a desktop
// (1280x800) the QR code beside them. The wallet links carry the exact address and amount
// (docs/payment-page.md, "Open in wallet").

const pageUrl = (app: TestApp, id: number) => `${app.baseUrl}/payment/${id}?k=${linkKeyWith(app.env.MASTER_KEY!, id)}`;

async function createInvoice(app: TestApp, key: string, body: Record<string, unknown> = {}): Promise<{ id: number; address: string }> {
  const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX', 'USDT'], order_id: 'A-17', description: 'Two tickets, row F', ...body } });
  expect(res.status).toBe(200);
  return { id: res.json.id as number, address: res.json.address as string };
}

/** Every part wholly inside the viewport as loaded, by its box: nothing scrolled. */
async function expectOnFirstScreen(page: Page, parts: [string, Locator][]): Promise<void> {
  const { height, width } = page.viewportSize()!;
  expect(await page.evaluate(() => window.scrollY), 'not scrolled').toBe(0);
  for (const [what, locator] of parts) {
    await expect(locator, what).toBeVisible();
    const box = await locator.boundingBox();
    expect(box, `${what} has a box`).not.toBeNull();
    expect(box!.y, `${what} starts on the first screen`).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height, `${what} ends on the first screen (${width}x${height})`).toBeLessThanOrEqual(height);
  }
}

const payParts = (page: Page, copyAddress = 'Copy address'): [string, Locator][] => [
  ['the amount', page.getByTestId('pay-amount')],
  ['the address', page.getByTestId('pay-address')],
  ['its copy button', page.getByRole('button', { name: copyAddress })],
  ['the time left', page.getByRole('timer')],
];

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });
    const phone = size.name === 'phone';

    test('the first screen shows the amount, the address with its copy button and the time left; the tron: link carries them', async ({ page, stack }) => {
      const { key } = await stack.app.createMerchant();
      const invoice = await createInvoice(stack.app, key);
      await page.goto(pageUrl(stack.app, invoice.id));
      await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');
      await expect(page.getByRole('timer')).toHaveText(/^(59|60):\d\d$/);
      const wallet = page.getByRole('link', { name: 'Open in wallet' });
      const qr = page.getByRole('img', { name: /QR code/ });
      // A phone: the wallet button too, the QR code (for paying from another device) below the fold.
      // A desktop: the QR code beside them, no wallet button (no wallet app there takes the link).
      await expectOnFirstScreen(page, [...payParts(page), ...(phone ? [['the wallet button', wallet] as [string, Locator]] : [['the QR code', qr] as [string, Locator]])]);
      if (phone) {
        await expect(wallet).toHaveAttribute('href', `tron:${invoice.address}?amount=40`);
        await expect(page.getByText('Before you confirm, check that the wallet sends exactly this amount of TRX to this address.')).toBeVisible();
        // Below the wallet button (for paying from a second device), and there when scrolled to.
        const [qrBox, walletBox] = [await qr.boundingBox(), await wallet.boundingBox()];
        expect(qrBox!.y).toBeGreaterThanOrEqual(walletBox!.y + walletBox!.height);
        await qr.scrollIntoViewIfNeeded();
        await expect(qr).toBeInViewport();
        await page.evaluate(() => window.scrollTo(0, 0));
      } else {
        await expect(wallet).toBeHidden();
      }
      // The devnet is no network Trust Wallet knows: no link that would send mainnet money here.
      await expect(page.getByRole('link', { name: 'Open in Trust Wallet' })).toHaveCount(0);
      await page.screenshot({ path: screenshotPath(`payment-first-screen-${size.name}`) });
      await expectAccessibleHere(page, 'a new invoice\'s first screen');

      // USDT: no tron: link (it would start a TRX send); the copy buttons and the time left stay on the first screen.
      await page.getByText('USDT (TRC-20)').click();
      await expect(page.getByTestId('pay-amount')).toHaveText('10 USDT');
      await expect(wallet).toHaveCount(0);
      await expectOnFirstScreen(page, payParts(page));
    });

    test('with a store profile, a long description, the service fee and part paid, in Spanish: still on the first screen', async ({ browser, stack }) => {
      const { merchant, key } = await stack.app.createMerchant();
      await stack.app.prisma.merchant.update({ where: { id: merchant.id }, data: { storeName: 'Row F Tickets', supportEmail: 'help@rowf.example' } });
      const invoice = await createInvoice(stack.app, key, { client_commission: true, description: 'Two tickets, row F, for the Saturday evening show, with a long description the merchant wrote' });
      await devnetPay(stack, invoice.address, '15', 'TRX');
      const context = await browser.newContext({ viewport: size.viewport, isMobile: size.isMobile, hasTouch: size.isMobile, locale: 'es-ES' });
      const page = await context.newPage();
      await page.goto(pageUrl(stack.app, invoice.id));
      await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'partial', { timeout: 10_000 });
      await expect(page.getByTestId('fee-line')).toBeVisible();
      await expect(page.getByTestId('store')).toBeVisible();
      await expectOnFirstScreen(page, payParts(page, 'Copiar dirección'));
      if (phone) await expect(page.getByRole('link', { name: 'Abrir en la billetera' })).toHaveAttribute('href', new RegExp(`^tron:${invoice.address}\\?amount=\\d+(\\.\\d+)?$`));
      await page.screenshot({ path: screenshotPath(`payment-first-screen-busy-${size.name}`) });
      await expectAccessibleHere(page, 'a partly paid invoice with a store profile and the fee line, in Spanish');
      await context.close();
    });
  });
}

// Last in the file: startApp points this process's settings at the second app (put back after it).
test('on mainnet, Open in Trust Wallet carries the token, the exact address and the amount, for TRX and USDT; at both sizes', async ({ browser, stack }) => {
  const saved = { ...process.env };
  // The production server configured for mainnet, reading the local devnet as its node.
  const app = await startApp({ TRON_NETWORK: 'mainnet', TRON_FULL_NODE_URL: stack.devnet.url, TRON_USDT_CONTRACT: stack.devnet.usdtContract });
  try {
    const { key } = await app.createMerchant();
    const invoice = await createInvoice(app, key);
    const href = (asset: string, amount: string) => `https://link.trustwallet.com/send?asset=${asset}&address=${invoice.address}&amount=${amount}`;
    for (const size of SIZES) {
      const phone = size.name === 'phone';
      const context = await browser.newContext({ viewport: size.viewport, isMobile: size.isMobile, hasTouch: size.isMobile });
      const page = await context.newPage();
      await page.goto(pageUrl(app, invoice.id));
      await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');
      // On a desktop the buttons are in the page but not shown (display: none): found with includeHidden.
      const trust = page.getByRole('link', { name: 'Open in Trust Wallet', includeHidden: true });
      const tron = page.getByRole('link', { name: 'Open in wallet', includeHidden: true });
      // Trust Wallet's asset ids: c195 is Tron mainnet's TRX, c195_t<contract> a TRC-20 token (the contract the service watches).
      await expect(trust).toHaveAttribute('href', href('c195', '40'));
      await expect(tron).toHaveAttribute('href', `tron:${invoice.address}?amount=40`);
      if (phone) {
        await expectOnFirstScreen(page, [...payParts(page), ['the wallet button', tron], ['the Trust Wallet button', trust]]);
      } else {
        await expect(trust).toBeHidden();
        await expect(tron).toBeHidden();
        await expectOnFirstScreen(page, [...payParts(page), ['the QR code', page.getByRole('img', { name: /QR code/ })]]);
      }
      await page.screenshot({ path: screenshotPath(`payment-trust-wallet-${size.name}`) });
      await expectAccessibleHere(page, `a mainnet invoice with the Trust Wallet link (${size.name})`);

      // USDT: the Trust Wallet link names the token by its contract; no tron: link.
      await page.getByText('USDT (TRC-20)').click();
      await expect(page.getByTestId('pay-amount')).toHaveText('10 USDT');
      await expect(trust).toHaveAttribute('href', href(`c195_t${stack.devnet.usdtContract}`, '10'));
      await expect(tron).toHaveCount(0);
      if (phone) await expect(page.getByText('Before you confirm, check that the wallet sends exactly this amount of USDT to this address.')).toBeVisible();
      // Never the only way to pay: the copy buttons and the QR code are there too.
      await expect(page.getByRole('button', { name: 'Copy address' })).toBeVisible();
      await expect(page.getByRole('img', { name: /QR code/ })).toBeAttached();
      await context.close();
    }
  } finally {
    await app.stop();
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
});
