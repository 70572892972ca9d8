import { randomBytes } from 'node:crypto';
import { devnetPay, expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

test.use({ withWorker: true });

test('paying with the devnet button completes the invoice through the worker and returns to the merchant', async ({ page, stack }) => {
  const { key } = await stack.app.createMerchant();
  const returnUrl = `${stack.app.baseUrl}/?paid=${randomBytes(4).toString('hex')}`;
  const created = await stack.app.api('/payment/create', key, {
    method: 'POST',
    body: { type: 'SINGLE', amount: 10, currencies: ['TRX', 'USDT'], description: 'Concert ticket', redirect_url: returnUrl, webhook_url: stack.hookUrl },
  });
  expect(created.status).toBe(200);
  const id: number = created.json.id;

  await page.goto(created.json.paymentURL.replace(/^https?:\/\/[^/]+/, stack.app.baseUrl));
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'waiting');
  await expectAccessible(page, 'a payment page with the devnet button');
  await page.getByRole('button', { name: /Pay with devnet/ }).click();
  await expect(page.getByRole('heading', { name: 'Paid. Thank you!' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('link', { name: 'Return to the merchant now' })).toHaveAttribute('href', returnUrl);
  await expect(page.getByTestId('paid-receipt'), 'the way back to the merchant, not the receipt note').toHaveCount(0);
  await screenshotBothSizes(page, 'payment-completed');
  await expectAccessible(page, 'a paid invoice about to return to the merchant');
  await page.waitForURL(returnUrl, { timeout: 15_000 });

  // Not a page trick: the worker forwarded the funds and reported the invoice once.
  const invoice = (await stack.app.api(`/payment/get/${id}`, key)).json;
  expect(invoice.status).toBe('COMPLETED');
  expect(invoice.transfer_amounts.input.TRX).toBe(40);
  expect(invoice.transfer_amounts.output.TRX).toBeGreaterThan(0);
  await expect.poll(() => stack.hooks.filter((h) => JSON.parse(h.body).id === id).map((h) => JSON.parse(h.body).status), { timeout: 15_000 }).toEqual(['COMPLETED']);
});

test('an overpaid invoice says how much more than due arrived, and does not leave the page by itself', async ({ page, stack }) => {
  const { key } = await stack.app.createMerchant();
  const returnUrl = `${stack.app.baseUrl}/?paid=${randomBytes(4).toString('hex')}`;
  const created = await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'], redirect_url: returnUrl } });
  expect(created.status).toBe(200);
  const url = created.json.paymentURL.replace(/^https?:\/\/[^/]+/, stack.app.baseUrl);
  await page.goto(url);
  // 40 TRX due (10 USD at 0.25); 45 arrive, and the worker ends the invoice OVERPAID.
  await devnetPay(stack, created.json.address, '45', 'TRX');
  await expect(page.getByRole('heading', { name: 'Paid (more than the amount due)' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('received')).toHaveText('45 TRX');
  await expect(page.getByTestId('extra')).toHaveText('5 TRX');
  // The customer is sent to the merchant about the difference: the way back is a link, not a countdown (issue 38).
  await expect(page.getByRole('link', { name: 'Return to the merchant now' })).toHaveAttribute('href', returnUrl);
  await expect(page.getByText(/Taking you back to the merchant/)).toHaveCount(0);
  await expect(page).toHaveURL(url);
  await screenshotBothSizes(page, 'payment-overpaid');
  await expectAccessible(page, 'an overpaid invoice');
  expect((await stack.app.api(`/payment/get/${created.json.id}`, key)).json.status).toBe('OVERPAID');
});
