import { randomBytes } from 'node:crypto';
import { expect, expectAccessible, screenshotPath, test } from './fixtures';

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
  await page.screenshot({ path: screenshotPath('payment-completed'), fullPage: true });
  await expectAccessible(page, 'a paid invoice about to return to the merchant');
  await page.waitForURL(returnUrl, { timeout: 15_000 });

  // Not a page trick: the worker forwarded the funds and reported the invoice once.
  const invoice = (await stack.app.api(`/payment/get/${id}`, key)).json;
  expect(invoice.status).toBe('COMPLETED');
  expect(invoice.transfer_amounts.input.TRX).toBe(40);
  expect(invoice.transfer_amounts.output.TRX).toBeGreaterThan(0);
  await expect.poll(() => stack.hooks.filter((h) => JSON.parse(h.body).id === id).map((h) => JSON.parse(h.body).status), { timeout: 15_000 }).toEqual(['COMPLETED']);
});
