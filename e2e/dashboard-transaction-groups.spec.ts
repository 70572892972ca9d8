import { signInSeededMerchant } from './dashboardSession';
import { DESKTOP, expect, expectAccessible, PHONE, screenshotPath, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

// Paid and forwarded by the real worker on the devnet; the books are reconciled at teardown (e2e/fixtures.ts).
test.use({ withWorker: true });
test.setTimeout(180_000);

/**
 * Issue 38, item 4 (docs/dashboard.md, "Transactions, grouped"): a USDT payment forwarded by the
 * worker is two rows on the Transactions page, the payment and its forward with the network cost
 * folded in, not one row per gas send; the gas sent to the address and returned is behind the
 * forward's "Network steps" button, at desktop and phone size, with axe-core and screenshots.
 */
test('a forwarded USDT payment is one row with its network cost, its gas behind "Network steps"', async ({ page, stack }) => {
  const { app } = stack;
  const { key } = await signInSeededMerchant(page, app, WALLET, 'groups');
  const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['USDT'] } });
  const invoice = created.json as { id: number; address: string; currencies_amounts: Record<string, number> };
  await stack.devnet.pay(invoice.address, String(invoice.currencies_amounts.USDT), 'USDT');

  // Forwarded, and the gas remainder returned: nothing of this payment's still in flight.
  const paymentOf = () => app.prisma.transaction.findFirst({ where: { invoiceId: invoice.id, type: 'PAYMENT' }, select: { id: true, paymentState: true, gasReturnDue: true } });
  await expect.poll(paymentOf, { timeout: 90_000 }).toMatchObject({ paymentState: 'SETTLED', gasReturnDue: false });
  const payment = (await paymentOf())!;
  await expect.poll(() => app.prisma.transaction.count({ where: { sourceId: payment.id, sendState: { in: ['SIGNED', 'BROADCAST'] } } }), { timeout: 60_000 }).toBe(0);
  const sends = await app.prisma.transaction.findMany({ where: { sourceId: payment.id, sendState: 'CONFIRMED' } });
  const steps = sends.length - 1;
  expect(steps, 'the forward needed gas').toBeGreaterThan(0);

  await page.goto(`${app.baseUrl}/dashboard/transactions?invoice_id=${invoice.id}`);
  const table = page.getByRole('table', { name: 'Transactions', exact: true });
  // The payment and its forward: the gas sends are not rows of their own.
  await expect(table.locator(':scope > tbody > tr')).toHaveCount(2);
  await expect(table.getByText('Gas sent')).toHaveCount(0);
  const row = table.locator(':scope > tbody > tr').filter({ hasText: 'Transfer out' });
  await expect(row).toContainText(/network cost [\d.]+ TRX/);
  const toggle = row.getByRole('button', { name: `Network steps (${steps})` });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');

  for (const size of [DESKTOP, PHONE]) {
    const name = size === DESKTOP ? 'desktop' : 'phone';
    await page.setViewportSize(size);
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const plumbing = page.getByRole('table', { name: 'Network steps' });
    await expect(plumbing).toBeVisible();
    await expect(page.locator(`[id="${await toggle.getAttribute('aria-controls')}"]`), 'the button names what it shows').toBeVisible();
    await expect(plumbing.locator('tbody > tr')).toHaveCount(steps);
    await expect(plumbing.getByRole('cell', { name: 'Gas sent' })).toBeVisible();
    await plumbing.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`dashboard-transaction-groups-${name}`), fullPage: true });
    await expectAccessible(page, `a forward's network steps shown (${name})`, { otherSize: false });
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(plumbing).toHaveCount(0);
    await expectAccessible(page, `the grouped transactions list (${name})`, { otherSize: false });
  }
});
