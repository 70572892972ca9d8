import { createChain } from '@/lib/chain';
import { assertReconciled } from '../test/helpers/reconcile';
import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

// Final 1,000 blocks below the head: a payment stays confirming until the test makes its block final (devnet solidify).
test.use({ withWorker: true, solidifiedDepth: 1_000 });

test('a payment waiting for finality shows how many blocks confirm it, counting up, then paid once its block is final, with a receipt where no redirect follows', async ({ page, stack }) => {
  const { key } = await stack.app.createMerchant();
  const created = await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['USDT'], description: 'Concert ticket' } });
  expect(created.status).toBe(200);
  await page.goto(created.json.paymentURL.replace(/^https?:\/\/[^/]+/, stack.app.baseUrl));
  await stack.devnet.pay(created.json.address, '10', 'USDT');

  // Recorded by the worker in its block (not final): the progress, in blocks, in the status and beside the payment.
  const progress = page.getByRole('progressbar', { name: 'Confirmation progress' });
  await expect(progress).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'confirming');
  await expect(page.getByTestId('confirm-progress')).toContainText(/^Confirmed by \d+ of \d+ blocks$/);
  const first = Number(await progress.getAttribute('aria-valuenow'));
  expect(first).toBeGreaterThanOrEqual(1);
  expect(Number(await progress.getAttribute('aria-valuenow'))).toBeLessThanOrEqual(Number(await progress.getAttribute('aria-valuemax')));
  // It counts up as blocks are built on the payment's, without a reload.
  await expect.poll(async () => Number(await progress.getAttribute('aria-valuenow')), { timeout: 20_000 }).toBeGreaterThan(first);
  await expect(page.getByTestId('payment-confirmations')).toHaveText(/^\d+\/\d+$/);
  // On the devnet no public explorer shows the transaction: the txid is text, not a link.
  await expect(page.getByTestId('payments').getByRole('link')).toHaveCount(0);
  await screenshotBothSizes(page, 'payment-confirming-progress');
  await expectAccessible(page, 'a payment confirming, with its progress');

  // Its block made final, and then each block the worker's sends land in (the forward, the gas return), as a chain
  // moving on would: the worker books the payment and the page says paid; no progress left.
  const finalizing = setInterval(() => void stack.devnet.solidify().catch(() => undefined), 300);
  try {
    await expect(page.getByRole('heading', { name: 'Paid. Thank you!' })).toBeVisible({ timeout: 30_000 });
    await expect(progress).toHaveCount(0);
    // No redirect_url: not a dead end (issue 38). The page says what to keep and offers to print or save it.
    await expect(page.getByTestId('paid-receipt')).toContainText('You can close this page. Its address is your receipt');
    await page.evaluate(() => {
      const w = window as unknown as { printed: number };
      w.printed = 0;
      window.print = () => void w.printed++;
    });
    await page.getByRole('button', { name: 'Print or save as PDF' }).click();
    expect(await page.evaluate(() => (window as unknown as { printed: number }).printed)).toBe(1);
    await screenshotBothSizes(page, 'payment-paid-no-redirect');
    await expectAccessible(page, 'a paid invoice without a redirect');
    expect((await stack.app.api(`/payment/get/${created.json.id}`, key)).json.status).toBe('COMPLETED');
    // Everything the worker sent for it final too, so the suite's closing reconciliation finds nothing in flight.
    await assertReconciled(stack.app.prisma, createChain({ fullNodeUrl: stack.devnet.url, apiKey: null, usdtContract: stack.devnet.usdtContract, txExpirationMs: 60_000 }), 30_000);
  } finally {
    clearInterval(finalizing);
  }
});
