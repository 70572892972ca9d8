import { randomBytes } from 'node:crypto';
import { linkKeyWith } from '@/lib/invoices/linkKey';
import { expect, expectAccessibleHere, screenshotPath, test, type Stack } from './fixtures';

// Issue 26: the payment page tells the truth at 00:00, and about money held for the merchant.
// Run at desktop and phone size; the worker's states are written to the database as the worker would.

const PAYER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 360, height: 740 }, isMobile: true },
] as const;

async function createInvoice(stack: Stack, currencies: string[]) {
  const { merchant, key } = await stack.app.createMerchant();
  const res = await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies, order_id: 'T-1' } });
  expect(res.status).toBe(200);
  return { id: res.json.id as number, address: res.json.address as string, merchantId: merchant.id };
}

const pageUrl = (stack: Stack, id: number) => `${stack.app.baseUrl}/payment/${id}?k=${linkKeyWith(stack.app.env.MASTER_KEY!, id)}`;

/** A payment as the scanner records it; `state` as the payments job leaves it. */
async function recordPayment(stack: Stack, invoice: { id: number; address: string; merchantId: number }, amountUnits: bigint, currency: 'TRX' | 'USDT', state: 'SETTLED' | 'HELD', heldReason: string | null = null) {
  const txid = randomBytes(32).toString('hex');
  await stack.app.prisma.transaction.create({
    data: {
      merchantId: invoice.merchantId, invoiceId: invoice.id, type: 'PAYMENT', trnHash: txid, chainRef: `${txid}:0`, fromAddress: PAYER,
      toAddress: invoice.address, amountUnits, currency, paymentState: state, heldReason, blockNumber: 1,
    },
  });
}

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });

    test('at 00:00 a partly paid invoice stops asking for money, before the worker closes it', async ({ page, stack }) => {
      const invoice = await createInvoice(stack, ['TRX']);
      await recordPayment(stack, invoice, 15_000_000n, 'TRX', 'SETTLED');
      await stack.app.prisma.invoiceCurrency.updateMany({ where: { invoiceId: invoice.id }, data: { receivedUnits: 15_000_000n } });
      // A few seconds left; no worker runs in this stack, so the invoice stays ACTIVE throughout.
      await stack.app.prisma.invoice.update({ where: { id: invoice.id }, data: { expiredAt: new Date(Date.now() + 6_000) } });
      await page.goto(pageUrl(stack, invoice.id));
      await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'partial');
      await expect(page.getByText('Send the remaining')).toBeVisible();
      await expect(page.getByTestId('pay-amount')).toHaveText('25 TRX');
      await page.screenshot({ path: screenshotPath(`payment-before-time-up-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a partly paid invoice');

      await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'expired', { timeout: 20_000 });
      await expect(page.getByRole('heading', { name: 'This invoice has expired' })).toBeVisible();
      await expect(page.getByText('The time to pay is up')).toBeVisible();
      await expect(page.getByText('A payment that arrives late still goes to the merchant')).toBeVisible();
      await expect(page.getByText('Send the remaining')).toHaveCount(0);
      await expect(page.getByTestId('pay-amount')).toHaveCount(0);
      await expect(page.getByRole('img', { name: /QR code/ })).toHaveCount(0);
      await expect(page.getByRole('button', { name: /Pay with devnet/ })).toHaveCount(0);
      expect((await stack.app.prisma.invoice.findUniqueOrThrow({ where: { id: invoice.id } })).status).toBe('ACTIVE');
      // A reload (the server's view) says the same.
      await page.reload();
      await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'expired');
      await expect(page.getByTestId('pay-amount')).toHaveCount(0);
      await page.screenshot({ path: screenshotPath(`payment-time-up-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a partly paid invoice whose time is up');
    });

    test('money held for the merchant is told in plain words, not as "Confirming"', async ({ page, stack }) => {
      // Paid after the invoice was canceled.
      const canceled = await createInvoice(stack, ['TRX']);
      await stack.app.prisma.invoice.update({ where: { id: canceled.id }, data: { status: 'CANCELED' } });
      await recordPayment(stack, canceled, 40_000_000n, 'TRX', 'HELD', 'invoice canceled: the merchant decides whether to forward or return it');
      await page.goto(pageUrl(stack, canceled.id));
      await expect(page.getByRole('heading', { name: 'This invoice was canceled' })).toBeVisible();
      await expect(page.getByTestId('held-note')).toHaveText(
        'A payment of 40 TRX arrived and is held for the merchant to forward or return. It arrived after the invoice was canceled. Contact the merchant about it.',
      );
      const list = page.getByTestId('payments');
      await expect(list).toContainText('Held for the merchant to forward or return');
      await expect(list).toContainText('It arrived after the invoice was canceled.');
      await expect(page.getByText('Confirming')).toHaveCount(0);
      await page.screenshot({ path: screenshotPath(`payment-held-canceled-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a canceled invoice with a held payment');

      // A token the invoice does not accept, on an open invoice.
      const trxOnly = await createInvoice(stack, ['TRX']);
      await recordPayment(stack, trxOnly, 10_000_000n, 'USDT', 'HELD', `token not accepted: invoice ${trxOnly.id} accepts TRX, not USDT`);
      await page.goto(pageUrl(stack, trxOnly.id));
      await expect(page.getByTestId('held-note')).toContainText('This invoice does not accept that token.');
      // The title says what the page still waits for, not a bare "Waiting for your payment" beside the held payment (issue 38).
      await expect(page.getByRole('heading', { name: 'Still waiting for your payment in TRX' })).toBeVisible();
      await expect(page.getByText('What arrived is a token this invoice does not take: it is held for the merchant (below).', { exact: false })).toBeVisible();
      await expect(page.getByTestId('payments')).toContainText('Held for the merchant to forward or return');
      await expect(page.getByText('Confirming')).toHaveCount(0);
      await expect(page.getByText('A payment is on its way and being confirmed.')).toHaveCount(0);
      // The instructions say what really happens to a token the invoice does not take: held, not lost (issue 38).
      await expect(page.getByText(/TRX or USDT this invoice does not take is held for the merchant, who can return it/)).toBeVisible();
      await expect(page.getByText(/are lost/)).toHaveCount(0);
      await page.screenshot({ path: screenshotPath(`payment-held-token-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'an open invoice with a payment held for its token');
      if (size.isMobile) expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    });

    test('held money on the page of a merchant with a profile: the note, then the store\'s contact', async ({ page, stack }) => {
      const invoice = await createInvoice(stack, ['TRX']);
      // The profile as Settings saves it (e2e/payment-profile.spec.ts sets it through the page).
      await stack.app.prisma.merchant.update({ where: { id: invoice.merchantId }, data: { storeName: 'Row F Tickets', supportEmail: 'help@rowf.example', supportUrl: 'https://rowf.example/help' } });
      await recordPayment(stack, invoice, 10_000_000n, 'USDT', 'HELD', `token not accepted: invoice ${invoice.id} accepts TRX, not USDT`);
      await page.goto(pageUrl(stack, invoice.id));
      await expect(page.getByTestId('store')).toContainText('Row F Tickets');
      const panel = page.getByTestId('payment-status');
      await expect(panel.getByTestId('held-note')).toHaveText(
        'A payment of 10 USDT arrived and is held for the merchant to forward or return. This invoice does not accept that token. Contact the merchant about it.',
      );
      // Where the panel sends the customer to the merchant, it says how: the store's e-mail and page.
      const contact = panel.getByTestId('merchant-contact');
      await expect(contact).toContainText('Contact Row F Tickets');
      await expect(contact.getByRole('link', { name: 'help@rowf.example' })).toHaveAttribute('href', 'mailto:help@rowf.example');
      await expect(contact.getByRole('link', { name: 'Support page' })).toHaveAttribute('href', 'https://rowf.example/help');
      await page.screenshot({ path: screenshotPath(`payment-held-profile-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a held payment with the store\'s contact');
    });
  });
}
