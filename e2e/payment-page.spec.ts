import { linkKeyWith } from '@/lib/invoices/linkKey';
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { startApp } from '../test/helpers/app';
import { devnetPay, expect, expectAccessible, screenshotPath, test, type Stack } from './fixtures';

const PAYER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';

interface Created {
  id: number;
  address: string;
  email: string;
  merchantId: number;
}

/** A fresh merchant and one invoice (10 USD, both tokens by default: 40 TRX at 0.25, or 10 USDT). */
async function createInvoice(stack: Stack, body: Record<string, unknown> = {}): Promise<Created> {
  const { merchant, key } = await stack.app.createMerchant();
  const res = await stack.app.api('/payment/create', key, {
    method: 'POST',
    body: { type: 'SINGLE', amount: 10, currencies: ['TRX', 'USDT'], order_id: 'A-17', description: 'Two tickets, row F', ...body },
  });
  expect(res.status).toBe(200);
  return { id: res.json.id, address: res.json.address, email: merchant.email, merchantId: merchant.id };
}

// The paymentURL: the id and its link key (without it the page shows the limited view, docs/payment-page.md).
const pageUrl = (stack: Stack, id: number | string) => `${stack.app.baseUrl}/payment/${id}?k=${linkKeyWith(stack.app.env.MASTER_KEY!, Number(id) || 0)}`;
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;


test('a new invoice shows the amount, the QR code, and the token switch changes both', async ({ page, stack }) => {
  const invoice = await createInvoice(stack);
  await page.goto(pageUrl(stack, invoice.id));

  await expect(page.getByRole('heading', { name: `Payment #${invoice.id}` })).toBeVisible();
  await expect(page.getByText('Two tickets, row F')).toBeVisible();
  await expect(page.getByText('A-17')).toBeVisible();
  await expect(page.getByTestId('amount-usd')).toHaveText('10 USD');
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'waiting');
  await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');
  await expect(page.getByTestId('pay-address')).toHaveText(invoice.address);
  const qr = page.getByRole('img', { name: /QR code/ });
  await expect(qr).toHaveAttribute('data-qr-value', `tron:${invoice.address}?amount=40`);
  await expect(page.getByRole('timer')).toHaveText(/^(59|60):\d\d$/);

  await page.getByText('USDT (TRC-20)').click();
  await expect(page.getByTestId('pay-amount')).toHaveText('10 USDT');
  await expect(qr).toHaveAttribute('data-qr-value', invoice.address);
  await expect(qr).toHaveAccessibleName(`QR code to pay 10 USDT to ${invoice.address}`);

  // Keyboard: the token choice is a radio group, arrow keys move it.
  await page.getByRole('radio', { name: 'USDT (TRC-20)' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');

  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByRole('button', { name: 'Copy address' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(invoice.address);

  // Nothing the customer should not see: not in the page, not in the public status JSON.
  expect(await page.content()).not.toContain(invoice.email);
  const status = await (await fetch(`${stack.app.baseUrl}/payment/${invoice.id}/status?k=${linkKeyWith(stack.app.env.MASTER_KEY!, invoice.id)}`)).json();
  expect(Object.keys(status).sort()).toEqual(
    ['address', 'amount_usd', 'confirming', 'description', 'expired_at', 'final', 'full', 'id', 'merchant', 'order_id', 'payments', 'phase', 'receipt_email', 'redirect_url', 'server_time', 'status', 'tokens', 'type'].sort(),
  );
  expect(JSON.stringify(status)).not.toContain(invoice.email);
  expect(status.tokens).toEqual([
    { currency: 'TRX', amount_due: '40', received: '0', missing: '40', extra: null, amount_before_fee: null, service_fee: null },
    { currency: 'USDT', amount_due: '10', received: '0', missing: '10', extra: null, amount_before_fee: null, service_fee: null },
  ]);

  await page.screenshot({ path: screenshotPath('payment-new'), fullPage: true });
  await expectAccessible(page, 'a new invoice\'s payment page');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('payment-new-dark'), fullPage: true });
  await expectAccessible(page, 'a new invoice\'s payment page in the dark colour scheme');
  // The limited view (the id without the link key).
  await page.goto(`${stack.app.baseUrl}/payment/${invoice.id}`);
  await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');
  await expectAccessible(page, 'the limited view of a new invoice');
});

test('paying through the devnet button shows the payment as seen within a block', async ({ page, stack }) => {
  const invoice = await createInvoice(stack, { currencies: ['USDT'] });
  await page.goto(pageUrl(stack, invoice.id));
  await page.getByRole('button', { name: 'Pay with devnet (USDT)' }).click();
  // The button's "Sent" note lives in the payment details, which the page hides once its status poll
  // sees the payment: on a slow machine the poll can win the race (seen in CI), so either shows.
  await expect(page.getByText('Sent. Watch the status above.').or(page.getByRole('heading', { name: 'Payment seen, confirming' }))).toBeVisible();
  // No reload: the poll picks it up from the node's head state, before the worker confirms it.
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'confirming', { timeout: 10_000 });
  await expect(page.getByRole('heading', { name: 'Payment seen, confirming' })).toBeVisible();
  await expect(page.getByTestId('pay-amount')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('payment-seen'), fullPage: true });
  await expectAccessible(page, 'a payment seen, confirming');
});

test('a partial payment shows what arrived and what is missing; underpaid too', async ({ page, stack }) => {
  const invoice = await createInvoice(stack, { currencies: ['TRX'] });
  await page.goto(pageUrl(stack, invoice.id));
  await devnetPay(stack, invoice.address, '15', 'TRX');
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'partial', { timeout: 10_000 });
  await expect(page.getByTestId('received')).toHaveText('15 TRX');
  await expect(page.getByTestId('missing')).toHaveText('25 TRX');
  await expect(page.getByTestId('pay-amount')).toHaveText('25 TRX');
  await expect(page.getByText('Send the remaining')).toBeVisible();
  await expectAccessible(page, 'a partly paid invoice');

  // The worker's end state after expiry (simulated until the worker runs in this stack).
  await stack.app.prisma.invoiceCurrency.updateMany({ where: { invoiceId: invoice.id }, data: { receivedUnits: 15_000_000n } });
  await stack.app.prisma.invoice.update({ where: { id: invoice.id }, data: { status: 'UNDERPAID', expiredAt: new Date(Date.now() - 1000) } });
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'underpaid', { timeout: 10_000 });
  await expect(page.getByTestId('missing')).toHaveText('25 TRX');
  await expect(page.getByTestId('pay-amount')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('payment-underpaid'), fullPage: true });
  await expectAccessible(page, 'an underpaid invoice');
});

test('partly paid in one of two tokens: what is still to pay reads as alternatives, in English and Spanish', async ({ page, stack }) => {
  // 10 USD: 40 TRX or 10 USDT. Half paid in TRX leaves half in either token.
  const invoice = await createInvoice(stack, { currencies: ['TRX', 'USDT'] });
  await page.goto(pageUrl(stack, invoice.id));
  await devnetPay(stack, invoice.address, '20', 'TRX');
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'partial', { timeout: 10_000 });
  await expect(page.getByTestId('received')).toHaveText('20 TRX');
  // Not "20 TRX / 5 USDT", which reads as owing both (issue 26).
  await expect(page.getByTestId('missing')).toHaveText('20 TRX or 5 USDT');
  await page.screenshot({ path: screenshotPath('payment-partial-two-tokens'), fullPage: true });
  await expectAccessible(page, 'a partly paid invoice in two tokens');
  await page.getByRole('navigation', { name: 'Language' }).getByRole('button', { name: 'Español' }).click();
  await expect(page.getByTestId('missing')).toHaveText('20 TRX o 5 USDT');
  await expect(page.getByText('Falta por pagar')).toBeVisible();
  await expectAccessible(page, 'a partly paid invoice in two tokens, in Spanish');
});

test('expired, canceled and AML-failed invoices say so and hide the payment details', async ({ page, stack }) => {
  const expired = await createInvoice(stack);
  await stack.app.prisma.invoice.update({ where: { id: expired.id }, data: { status: 'TIMEOUT', expiredAt: new Date(Date.now() - 60_000) } });
  await page.goto(pageUrl(stack, expired.id));
  await expect(page.getByRole('heading', { name: 'This invoice has expired' })).toBeVisible();
  await expect(page.getByRole('img', { name: /QR code/ })).toHaveCount(0);
  await expect(page.getByTestId('pay-address')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('payment-expired'), fullPage: true });
  await expectAccessible(page, 'an expired invoice');

  // Past expired_at but not yet closed by the worker: already shown as expired.
  const lapsed = await createInvoice(stack);
  await stack.app.prisma.invoice.update({ where: { id: lapsed.id }, data: { expiredAt: new Date(Date.now() - 1000) } });
  await page.goto(pageUrl(stack, lapsed.id));
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'expired');

  const canceled = await createInvoice(stack);
  await page.goto(pageUrl(stack, canceled.id));
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'waiting');
  await stack.app.prisma.invoice.update({ where: { id: canceled.id }, data: { status: 'CANCELED' } });
  await expect(page.getByRole('heading', { name: 'This invoice was canceled' })).toBeVisible({ timeout: 10_000 });
  await expect(page.getByRole('img', { name: /QR code/ })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('payment-canceled'), fullPage: true });
  await expectAccessible(page, 'a canceled invoice');

  // The worker's end state when the payment failed the AML check and was sent back.
  const refused = await createInvoice(stack);
  await stack.app.prisma.invoice.update({ where: { id: refused.id }, data: { status: 'AML_FAILED' } });
  await page.goto(pageUrl(stack, refused.id));
  await expect(page.getByRole('heading', { name: 'Payment returned' })).toBeVisible();
  await expect(page.getByText('did not pass the compliance check')).toBeVisible();
  await expect(page.getByTestId('pay-address')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('payment-aml-failed'), fullPage: true });
  await expectAccessible(page, 'an invoice whose payment failed the AML check');

  // The worker's end state when it could not process the payment.
  const failed = await createInvoice(stack);
  await stack.app.prisma.invoice.update({ where: { id: failed.id }, data: { status: 'ERROR' } });
  await page.goto(pageUrl(stack, failed.id));
  await expect(page.getByRole('heading', { name: 'We could not process this payment' })).toBeVisible();
  await expectAccessible(page, 'an invoice in error');
});

test('an unknown or malformed id is a 404 page, and a 404 on the status endpoint', async ({ page, stack }) => {
  for (const id of ['987654321', 'abc', '-1']) {
    const res = await page.goto(pageUrl(stack, id));
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: 'Payment not found' })).toBeVisible();
  }
  await page.screenshot({ path: screenshotPath('payment-not-found'), fullPage: true });
  await expectAccessible(page, 'the payment page\'s 404');
  const res = await fetch(`${stack.app.baseUrl}/payment/987654321/status`);
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ detail: 'No Invoice matches the given query.' });
});

test('a static address lists the payments it received, without reload', async ({ page, stack }) => {
  const invoice = await createInvoice(stack, { type: 'MULTIPLE' });
  await page.goto(pageUrl(stack, invoice.id));
  await expect(page.getByText('Send any amount of TRX, USDT to this address.', { exact: false })).toBeVisible();
  await expect(page.getByText('No payments yet.')).toBeVisible();
  await expect(page.getByRole('timer')).toHaveCount(0);

  // A payment as the worker records it on a confirmed block.
  const txid = randomBytes(32).toString('hex');
  await stack.app.prisma.transaction.create({
    data: {
      merchantId: invoice.merchantId,
      invoiceId: invoice.id,
      type: 'PAYMENT',
      trnHash: txid,
      chainRef: `${txid}:0`,
      fromAddress: PAYER,
      toAddress: invoice.address,
      amountUnits: 12_500_000n,
      currency: 'USDT',
      paymentState: 'SETTLED',
      blockNumber: 1,
    },
  });
  const list = page.getByTestId('payments');
  await expect(list).toContainText('12.5 USDT', { timeout: 10_000 });
  await expect(list).toContainText('Received');
  await expect(list).toContainText(txid);
  await page.screenshot({ path: screenshotPath('payment-static'), fullPage: true });
  await expectAccessible(page, 'a static address with a payment received');
});

test('on a phone, in Spanish: fits the screen and speaks the language', async ({ browser, stack }) => {
  const invoice = await createInvoice(stack);
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'es-ES', isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto(pageUrl(stack, invoice.id));
  await expect(page.getByRole('heading', { name: 'Esperando tu pago' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Copiar dirección' })).toBeVisible();
  await expect(page.locator('div[lang="es"]')).toHaveCount(1);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBe(0);
  await page.screenshot({ path: screenshotPath('payment-phone-es'), fullPage: true });
  await expectAccessible(page, 'a new invoice on a phone, in Spanish');
  await context.close();
});

test('on a phone the first screen is for paying: amount, address with copy, countdown and Open in wallet; the QR code below, first on a desktop', async ({ browser, stack }) => {
  const invoice = await createInvoice(stack);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  await page.goto(pageUrl(stack, invoice.id));
  await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');
  for (const [what, locator] of [
    ['the amount', page.getByTestId('pay-amount')],
    ['the address', page.getByTestId('pay-address')],
    ['its copy button', page.getByRole('button', { name: 'Copy address' })],
    ['the countdown', page.getByRole('timer')],
    ['the wallet button', page.getByRole('link', { name: 'Open in wallet' })],
  ] as const) {
    await expect(locator, `${what} on the first screen`).toBeInViewport({ ratio: 1 });
  }
  // The button hands the wallet app the same request as the QR code: address and amount.
  await expect(page.getByRole('link', { name: 'Open in wallet' })).toHaveAttribute('href', `tron:${invoice.address}?amount=40`);
  const qr = page.getByRole('img', { name: /QR code/ });
  const below = async (upper: typeof qr, lower: typeof qr) => {
    const [u, l] = [await upper.boundingBox(), await lower.boundingBox()];
    return u !== null && l !== null && l.y >= u.y + u.height;
  };
  expect(await below(page.getByRole('link', { name: 'Open in wallet' }), qr), 'the QR code comes after the wallet button').toBe(true);
  await expect(page.getByText('Paying from another device? Scan this code with its wallet.')).toBeVisible();
  await page.screenshot({ path: screenshotPath('payment-phone-first-screen') });
  await expectAccessible(page, 'a new invoice on a phone');
  // USDT: no wallet link (a bare tron: link would start a TRX send in most wallets); the copy buttons stay on the first screen.
  await page.getByText('USDT (TRC-20)').click();
  await expect(page.getByTestId('pay-amount')).toHaveText('10 USDT');
  await expect(page.getByRole('link', { name: 'Open in wallet' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Copy address' })).toBeInViewport({ ratio: 1 });
  await context.close();

  // A desktop, where the customer scans with a phone: the QR code first, no wallet button.
  const desk = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await desk.goto(pageUrl(stack, invoice.id));
  await expect(desk.getByTestId('pay-amount')).toHaveText('40 TRX');
  // The QR code first: in a column left of the amount and address (all of them on the first screen, issue 38).
  const [qrBox, amountBox] = [await desk.getByRole('img', { name: /QR code/ }).boundingBox(), await desk.getByTestId('pay-amount').boundingBox()];
  expect(qrBox !== null && amountBox !== null && qrBox.x + qrBox.width <= amountBox.x, 'the QR code comes first (left of the amount) on a desktop').toBe(true);
  await expect(desk.getByRole('link', { name: 'Open in wallet' })).toBeHidden();
  await expect(desk.getByText("Scan this code with your phone's wallet app.")).toBeVisible();
  await desk.screenshot({ path: screenshotPath('payment-desktop-layout') });
  await desk.close();
});

test("a payout's paymentURL is its top-up page: the exact top-up, live until paid out, nothing of the targets", async ({ page, browser, stack }) => {
  const { merchant, key } = await stack.app.createMerchant();
  const target = randomAddress();
  const created = await stack.app.api('/payment/multiple_transfer/create', key, { method: 'POST', body: { currency: 'TRX', target_wallets: [{ address: target, amount: 12.345678 }] } });
  expect(created.status).toBe(200);
  const payout = created.json as { id: number; address: string; paymentURL: string; currencies_amounts: { TRX: number } };
  expect(payout.paymentURL).toMatch(new RegExp(`/payment/${payout.id}\\?k=[A-Za-z0-9_-]{22}$`));
  const topup = String(payout.currencies_amounts.TRX);
  const payoutUrl = pageUrl(stack, payout.id);

  await test.step('the top-up amount, address, QR and countdown', async () => {
    const res = await page.goto(payout.paymentURL);
    expect(res?.status()).toBe(200);
    await expect(page).toHaveTitle(`Payout top-up #${payout.id}`);
    await expect(page.getByRole('heading', { name: `Payout top-up #${payout.id}` })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Waiting for the top-up' })).toBeVisible();
    await expect(page.getByTestId('pay-amount')).toHaveText(`${topup} TRX`);
    await expect(page.getByTestId('pay-address')).toHaveText(payout.address);
    await expect(page.getByRole('img', { name: /QR code/ })).toHaveAttribute('data-qr-value', `tron:${payout.address}?amount=${topup}`);
    await expect(page.getByRole('timer')).toHaveText(/^(59|60):\d\d$/);
    await expect(page.getByText('Time left to top up')).toBeVisible();
    await expect(page.getByText('Payments received')).toHaveCount(0);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy amount' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(topup);
    await page.screenshot({ path: screenshotPath('payment-payout'), fullPage: true });
    await expectAccessible(page, 'a payout\'s top-up page');
  });

  await test.step('nothing private: not the targets, their amounts or the merchant', async () => {
    const status = await (await fetch(`${stack.app.baseUrl}/payment/${payout.id}/status?k=${linkKeyWith(stack.app.env.MASTER_KEY!, payout.id)}`)).json();
    expect(status).toMatchObject({ type: 'MULTIPLE_TRANSFER', phase: 'waiting', amount_usd: null, tokens: [{ currency: 'TRX', amount_due: topup, received: '0', missing: topup }] });
    for (const text of [await page.content(), JSON.stringify(status)]) {
      expect(text).not.toContain(target);
      expect(text).not.toContain('12.345678');
      expect(text).not.toContain(merchant.email);
    }
  });

  await test.step('on a phone, in Spanish', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'es-ES', isMobile: true, hasTouch: true });
    const phone = await context.newPage();
    await phone.goto(payoutUrl);
    await expect(phone.getByRole('heading', { name: `Recarga del pago masivo #${payout.id}` })).toBeVisible();
    await expect(phone.getByRole('heading', { name: 'Esperando la recarga' })).toBeVisible();
    await expect(phone.getByTestId('pay-amount')).toHaveText(`${topup} TRX`);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
    await phone.screenshot({ path: screenshotPath('payment-payout-phone-es'), fullPage: true });
    await expectAccessible(phone, 'a payout\'s top-up page on a phone, in Spanish');
    await context.close();
  });

  await test.step('the devnet button tops it up; seen within a block, then paying out, then complete', async () => {
    await page.getByRole('button', { name: 'Pay with devnet (TRX)' }).click();
    await expect(page.getByRole('heading', { name: 'Top-up seen, confirming' })).toBeVisible({ timeout: 10_000 });
    await expect(page.getByTestId('pay-amount')).toHaveCount(0);

    // The top-up as the scanner records it on a confirmed block; the payout loop sends on that row.
    const { dueUnits } = await stack.app.prisma.invoiceCurrency.findFirstOrThrow({ where: { invoiceId: payout.id } });
    const txid = randomBytes(32).toString('hex');
    await stack.app.prisma.transaction.create({
      data: { merchantId: merchant.id, invoiceId: payout.id, type: 'TOPUP', trnHash: txid, chainRef: `${txid}:trx`, fromAddress: PAYER, toAddress: payout.address, amountUnits: dueUnits, currency: 'TRX', blockNumber: 1 },
    });
    await expect(page.getByRole('heading', { name: 'Paying out' })).toBeVisible({ timeout: 10_000 });
    await page.screenshot({ path: screenshotPath('payment-payout-paying'), fullPage: true });
    await expectAccessible(page, 'a payout paying out');

    await stack.app.prisma.invoice.update({ where: { id: payout.id }, data: { status: 'COMPLETED' } });
    await expect(page.getByRole('heading', { name: 'Payout complete' })).toBeVisible({ timeout: 10_000 });
    await expect(page.getByText('Every recipient has been paid.')).toBeVisible();
    await page.screenshot({ path: screenshotPath('payment-payout-completed'), fullPage: true });
    await expectAccessible(page, 'a completed payout\'s top-up page');
  });
});

// Last in the file: startApp points this process's settings at the second app.
test('off the devnet: no pay button, the pay route is 404, and a dead node does not break the page', async ({ page, stack }) => {
  const app = await startApp({ TRON_FULL_NODE_URL: 'http://127.0.0.1:9', TRON_USDT_CONTRACT: stack.devnet.usdtContract });
  try {
    const { key } = await app.createMerchant();
    const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    expect(created.status).toBe(200);
    await page.goto(`${app.baseUrl}/payment/${created.json.id}`);
    await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'waiting');
    await expect(page.getByTestId('pay-amount')).toHaveText('40 TRX');
    await expect(page.getByRole('button', { name: /devnet/ })).toHaveCount(0);
    await expectAccessible(page, 'a payment page off the devnet');
    const res = await fetch(`${app.baseUrl}/payment/${created.json.id}/devnet-pay`, { method: 'POST', body: JSON.stringify({ currency: 'TRX' }), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(404);
  } finally {
    // The page would keep asking the second app for its status while it stops.
    await page.close();
    await app.stop();
  }
});
