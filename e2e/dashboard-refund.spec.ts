import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import { tokenAmountText } from '@/lib/money/tokens';
import { createInvoiceInDashboard, signInSeededMerchant } from './dashboardSession';
import type { Locator, Page } from '@playwright/test';
import { devnetPay, expect, expectAccessible, PHONE, screenshotPath, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

// Paid, refunded and sent by the real worker on the devnet; the books are reconciled at teardown (e2e/fixtures.ts).
test.use({ withWorker: true });
test.setTimeout(180_000);

/** A screenshot at the page's size and at a phone's with `shown` in view, then back (the flow itself runs once, at desktop size). */
async function screenshotBoth(page: Page, name: string, shown: Locator): Promise<void> {
  const own = page.viewportSize()!;
  await shown.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`${name}-desktop`) });
  await page.setViewportSize(PHONE);
  await shown.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(`${name}-phone`) });
  await page.setViewportSize(own);
}

/**
 * The dashboard's refund dialog (issue 36, docs/refunds.md): an overpaid invoice's overpaid part
 * refunded to an address with the cost shown before confirming, topped up and sent; then a claim
 * link made and canceled. axe-core and screenshots at desktop and phone size on the dialog and the
 * list (the money moves once: the flow runs at desktop size).
 */
test('a merchant refunds the overpaid part of an invoice from its page, sees the cost first, tops it up and sees it sent', async ({ page, stack }) => {
  const { app, devnet } = stack;
  const customer = (TronWeb.createRandom() as unknown as { address: string }).address;
  const chain = createChain({ fullNodeUrl: devnet.url, apiKey: null, usdtContract: devnet.usdtContract, txExpirationMs: 60_000 });

  // Seeded and signed in, not signed up: sign-ups are limited per address, and the stack's other specs use them.
  await signInSeededMerchant(page, app, WALLET, 'refund');
  const invoiceId = await createInvoiceInDashboard(page, '12.5');
  const refunds = page.getByRole('region', { name: 'Refunds' });
  await expect(refunds.getByRole('button', { name: 'Refund…' }), 'nothing received, nothing to refund').toHaveCount(0);

  // 50 TRX due (12.5 USD at 0.25); the customer sends 55.
  const { address } = await app.prisma.invoice.findUniqueOrThrow({ where: { id: invoiceId } });
  await devnetPay(stack, address, '55', 'TRX');
  await expect(page.getByTestId('invoice-status')).toHaveText('Overpaid', { timeout: 60_000 });

  await refunds.getByRole('button', { name: 'Refund…' }).click();
  const dialog = page.getByRole('dialog', { name: `Refund invoice #${invoiceId}` });
  await expect(dialog.getByLabel('Amount the customer receives (TRX)')).toHaveValue('55');
  await dialog.getByRole('button', { name: 'The overpaid part (5)' }).click();
  await expect(dialog.getByLabel('Amount the customer receives (TRX)')).toHaveValue('5');
  await dialog.getByLabel("Customer's address").fill(customer);
  await dialog.getByLabel('Note (optional, for your records)').fill('Overpaid by 5 TRX');
  await dialog.getByRole('button', { name: 'Show the cost' }).click();
  const cost = dialog.getByTestId('refund-cost');
  await expect(cost).toContainText(/Network cost [\d.]+ TRX: you top up [\d.]+ TRX, and the customer receives 5 TRX\. No service fee\./);
  await screenshotBoth(page, 'dashboard-refund-dialog', dialog);
  await expectAccessible(page, 'the refund dialog with its cost');
  await dialog.getByRole('button', { name: 'Create refund of 5 TRX' }).click();
  await expect(dialog).toBeHidden();

  const row = refunds.getByTestId('refund').first();
  await expect(row).toContainText('5 TRX');
  await expect(row.getByTitle('WAITING_FUNDS')).toHaveText('Waiting for your top-up');
  await expect(row).toContainText('Note: Overpaid by 5 TRX');
  await screenshotBoth(page, 'dashboard-refund-waiting', row);
  await expectAccessible(page, 'a refund waiting for its top-up');

  // The merchant tops it up from their wallet (here the devnet faucet), as the row says.
  const refund = await app.prisma.refund.findFirstOrThrow({ where: { invoiceId }, include: { payout: { include: { amounts: true } } } });
  await expect(row).toContainText(`Top up ${tokenAmountText(refund.payout!.amounts[0]!.dueUnits)} TRX`);
  // 2 TRX more than asked: the customer still gets exactly the amount, and the card offers the excess back (docs/payouts.md, "Returning the excess").
  await devnetPay(stack, refund.payout!.address, tokenAmountText(refund.payout!.amounts[0]!.dueUnits + 2_000_000n), 'TRX');
  await expect(row.getByTitle('SENT')).toHaveText('Sent', { timeout: 60_000 });
  await expect(row.getByRole('link', { name: 'See the transfer' })).toBeVisible();
  expect(await chain.getTrxBalance(customer), 'the customer received exactly the overpaid part').toBe(5_000_000n);
  const excess = row.getByTestId('refund-payout-excess');
  await expect(excess).toContainText('2 TRX more than needed arrived at its top-up address', { timeout: 20_000 });
  await excess.getByLabel(`Return payout #${refund.payoutId} to address`).fill(WALLET);
  await screenshotBoth(page, 'dashboard-refund-excess', excess);
  await expectAccessible(page, "a sent refund whose payout holds an excess");
  page.once('dialog', (d) => void d.accept());
  await excess.getByRole('button', { name: 'Return' }).click();
  await expect(excess.getByTestId('payout-return-requested')).toContainText(`Returned to ${WALLET}`, { timeout: 60_000 });

  // In Transactions the refund is one row of its own, naming the refund and its invoice (issue 38, item 4).
  await page.goto(`${app.baseUrl}/dashboard/transactions`);
  const listed = page.getByRole('table', { name: 'Transactions', exact: true }).locator(':scope > tbody > tr').filter({ hasText: `#${refund.id} of invoice #${invoiceId}` });
  await expect(listed).toHaveCount(1);
  await expect(listed).toContainText('Refund');
  await expect(listed).toContainText('5 TRX');
  await screenshotBoth(page, 'dashboard-refund-in-transactions', listed);
  await expectAccessible(page, 'the transactions list with a sent refund');
  await page.goto(`${app.baseUrl}/dashboard/invoices/${invoiceId}`);

  // A claim link for part of the rest, costed "at most", then canceled: its amount is refundable again.
  await refunds.getByRole('button', { name: 'Refund…' }).click();
  await expect(dialog.getByLabel('Amount the customer receives (TRX)')).toHaveValue('50');
  await dialog.getByLabel('Amount the customer receives (TRX)').fill('10');
  await dialog.getByRole('radio', { name: /The customer enters it/ }).check();
  await dialog.getByRole('button', { name: 'Show the cost' }).click();
  await expect(dialog.getByTestId('refund-cost')).toContainText(/Network cost at most [\d.]+ TRX/);
  await dialog.getByRole('button', { name: 'Create refund of 10 TRX' }).click();
  const claim = refunds.getByTestId('refund').nth(1);
  await expect(claim.getByTitle('WAITING_ADDRESS')).toHaveText("Waiting for the customer's address");
  await expect(claim).toContainText('/payment/refund/');
  await expectAccessible(page, 'a refund waiting for the customer');
  page.once('dialog', (d) => void d.accept());
  await claim.getByRole('button', { name: 'Cancel refund' }).click();
  await expect(claim.getByTitle('CANCELED')).toHaveText('Canceled');
});
