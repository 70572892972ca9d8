import { createChain } from '@/lib/chain';
import { assertReconciled } from '../test/helpers/reconcile';
import { expect, expectAccessibleHere, screenshotPath, SIZES, test } from './fixtures';

// Issue 38: a payment's transaction is linked to the block explorer of the configured network. The
// service is configured as an operator runs it on Nile (TRON_NETWORK=nile) with its own node: the
// node URL and the USDT contract are the devnet's (TRON_FULL_NODE_URL, TRON_USDT_CONTRACT,
// docs/chain.md), so the payment is real and the worker sees it, and the page links it to Nile's
// Tronscan. Final 1,000 blocks deep: the payment stays confirming until the test makes its block final.
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
      await expect(link).toHaveAttribute('href', `https://nile.tronscan.org/#/transaction/${txid}`);
      // The page's address carries its link key: nothing of it goes to the explorer.
      await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
      await expect(link).toHaveAttribute('target', '_blank');
      await page.screenshot({ path: screenshotPath(`payment-explorer-confirming-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, `a confirming payment linked to Tronscan (${size.name})`);

      // Its block made final, and each block after it, as a chain moving on would: paid, the link still there.
      const finalizing = setInterval(() => void stack.devnet.solidify().catch(() => undefined), 300);
      try {
        await expect(page.getByRole('heading', { name: 'Paid. Thank you!' })).toBeVisible({ timeout: 30_000 });
        await expect(link).toHaveAttribute('href', `https://nile.tronscan.org/#/transaction/${txid}`);
        await page.screenshot({ path: screenshotPath(`payment-explorer-paid-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, `a paid invoice linked to Tronscan (${size.name})`);
        expect((await stack.app.api(`/payment/get/${created.json.id}`, key)).json.status).toBe('COMPLETED');
        // Everything the worker sent for it final too, so the closing reconciliation finds nothing in flight.
        await assertReconciled(stack.app.prisma, createChain({ fullNodeUrl: stack.devnet.url, apiKey: null, usdtContract: stack.devnet.usdtContract, txExpirationMs: 60_000 }), 30_000);
      } finally {
        clearInterval(finalizing);
      }
    });
  });
}
