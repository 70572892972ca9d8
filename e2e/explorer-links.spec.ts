import { TronWeb } from 'tronweb';
import { createChain } from '@/lib/chain';
import { assertReconciled } from '../test/helpers/reconcile';
import { signInSeededMerchant } from './dashboardSession';
import { devnetPay, expect, expectAccessible, expectAccessibleHere, refundedSale, screenshotBothSizes, screenshotPath, SIZES, test, type Stack } from './fixtures';

const NILE_TX = 'https://nile.tronscan.org/#/transaction/';
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;
const chainOf = (stack: Stack) => createChain({ fullNodeUrl: stack.devnet.url, apiKey: null, usdtContract: stack.devnet.usdtContract, txExpirationMs: 60_000 });

/** Runs `body` while the devnet makes its newest block final every 300 ms, as a chain moving on would; then everything sent is final and booked. */
async function finalizing(stack: Stack, body: () => Promise<void>): Promise<void> {
  const timer = setInterval(() => void stack.devnet.solidify().catch(() => undefined), 300);
  try {
    await body();
    // Everything the worker sent final too, so the stack's closing reconciliation finds nothing in flight.
    await assertReconciled(stack.app.prisma, chainOf(stack), 30_000);
  } finally {
    clearInterval(timer);
  }
}

// Issue 38: a transaction is linked to the block explorer of the configured network (lib/networks.ts
// `explorerTx`): a payment on its payment page, a refund's transfer on its claim page, a held
// payment's release in the dashboard. The service is configured as an operator runs it on Nile
// (TRON_NETWORK=nile) with its own node: the node URL and the USDT contract are the devnet's
// (TRON_FULL_NODE_URL, TRON_USDT_CONTRACT, docs/chain.md), so the money is real and the worker sees
// it, and the pages link it to Nile's Tronscan. Final 1,000 blocks deep: a payment stays confirming
// until the test makes its block final (`finalizing`).
test.use({ withWorker: true, network: 'nile', solidifiedDepth: 1_000 });

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });

    test('a payment links its transaction to Tronscan on Nile, while confirming and once paid', async ({ page, stack }) => {
      const { key } = await stack.app.createMerchant();
      const created = await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['USDT'], description: 'Concert ticket' } });
      expect(created.status).toBe(200);
      await page.goto(created.json.paymentURL.replace(/^https?:\/\/[^/]+/, stack.app.baseUrl));
      await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'waiting');
      // Not the devnet: no faucet button, whatever node answers (lib/devnet/faucet.ts).
      await expect(page.getByRole('button', { name: /Pay with devnet/ })).toHaveCount(0);

      // The customer's wallet pays; the worker records the payment in its block (not final).
      const txid = await stack.devnet.pay(created.json.address, '10', 'USDT');
      const link = page.getByTestId('payments').getByRole('link', { name: `View on Tronscan: ${txid}` });
      await expect(page.getByTestId('payment-status')).toHaveAttribute('data-phase', 'confirming', { timeout: 30_000 });
      await expect(link).toHaveAttribute('href', `${NILE_TX}${txid}`);
      // The page's address carries its link key: nothing of it goes to the explorer.
      await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
      await expect(link).toHaveAttribute('target', '_blank');
      await page.screenshot({ path: screenshotPath(`payment-explorer-confirming-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, `a confirming payment linked to Tronscan (${size.name})`);

      // Its block made final, and each block after it, as a chain moving on would: paid, the link still there.
      await finalizing(stack, async () => {
        await expect(page.getByRole('heading', { name: 'Paid. Thank you!' })).toBeVisible({ timeout: 30_000 });
        await expect(link).toHaveAttribute('href', `${NILE_TX}${txid}`);
        await page.screenshot({ path: screenshotPath(`payment-explorer-paid-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, `a paid invoice linked to Tronscan (${size.name})`);
        expect((await stack.app.api(`/payment/get/${created.json.id}`, key)).json.status).toBe('COMPLETED');
      });
    });
  });
}

test("a refund's claim page links the refund's transfer to Tronscan on Nile", async ({ page, stack }) => {
  await finalizing(stack, async () => {
    const { key } = await stack.app.createMerchant({ targetWallet: randomAddress() });
    const { refund } = await refundedSale(stack, key);
    await page.goto(refund.claim_url.replace(/^https?:\/\/[^/]+/, stack.app.baseUrl));
    const customer = randomAddress();
    await page.getByLabel('Your Tron address').fill(customer);
    await page.getByRole('button', { name: 'Send my refund to this address' }).click();
    const status = page.getByTestId('refund-status');
    await expect(status.getByRole('heading', { name: 'Being prepared by the merchant' })).toBeVisible();
    const funded = (await stack.app.api(`/refund/${refund.id}`, key)).json;
    await devnetPay(stack, funded.topup_address, String(funded.topup_amount), 'TRX');
    // Exactly: a heading's name is matched as a substring by default, and "Being sent" (SENDING) holds "sent"; a run
    // on a busy machine read the refund's hash while it was still being sent, and found none (2026-12-05).
    await expect(status.getByRole('heading', { name: 'Sent', exact: true })).toBeVisible({ timeout: 60_000 });
    const { trn_hash: hash } = (await stack.app.api(`/refund/${refund.id}`, key)).json as { trn_hash: string };
    // The hash the page links is the transfer that paid the customer.
    const sent = await stack.app.prisma.transaction.findFirstOrThrow({ where: { trnHash: hash } });
    expect(sent.toAddress).toBe(customer);
    const link = status.getByRole('link', { name: hash });
    await expect(link).toHaveAttribute('href', `${NILE_TX}${hash}`);
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await screenshotBothSizes(page, 'refund-sent-explorer');
    await expectAccessible(page, 'a sent refund linked to Tronscan');
  });
});

test('a held payment released in the dashboard links its forward to Tronscan on Nile', async ({ page, stack }) => {
  const wallet = randomAddress();
  await finalizing(stack, async () => {
    const { key } = await signInSeededMerchant(page, stack.app, wallet, 'explorer');
    // The customer pays an invoice the merchant canceled: the worker holds it.
    const invoice = (await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } })).json;
    expect((await stack.app.api(`/payment/${invoice.id}/cancel`, key, { method: 'DELETE' })).status).toBe(200);
    await devnetPay(stack, invoice.address, '30', 'TRX');
    const table = page.getByRole('table', { name: 'Transactions' });
    const row = table.getByRole('row').filter({ hasText: '30 TRX' }).filter({ hasText: 'HELD' });
    await page.goto(`${stack.app.baseUrl}/dashboard/transactions`);
    await expect(async () => {
      await page.reload();
      await expect(row).toHaveCount(1, { timeout: 1_000 });
    }).toPass({ timeout: 60_000 });
    await row.getByRole('button', { name: 'Release 30 TRX…' }).click();
    const dialog = page.getByRole('dialog', { name: `Release 30 TRX held on invoice #${invoice.id}` });
    await dialog.getByRole('button', { name: 'Forward 30 TRX' }).click();
    await expect(dialog).toBeHidden();
    const released = table.getByRole('row').filter({ hasText: '30 TRX' }).filter({ has: page.getByTestId('release-outcome') });
    await expect(async () => {
      await page.reload();
      await expect(released).toContainText(`Released: forwarded to ${wallet.slice(0, 6)}`, { timeout: 1_000 });
    }).toPass({ timeout: 60_000 });
    // The forward that reached the wallet, on Nile's Tronscan.
    const forward = await stack.app.prisma.transaction.findFirstOrThrow({ where: { invoiceId: invoice.id, type: 'TRANSFER', toAddress: wallet, sendState: 'CONFIRMED' } });
    await expect(released.getByRole('link', { name: 'See the transfer' })).toHaveAttribute('href', `/dashboard/transactions?search=${forward.trnHash}`);
    const link = released.getByRole('link', { name: 'View on the block explorer' });
    await expect(link).toHaveAttribute('href', `${NILE_TX}${forward.trnHash}`);
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await screenshotBothSizes(page, 'dashboard-released-explorer');
    await expectAccessible(page, 'a released payment linked to Tronscan');
  });
});
