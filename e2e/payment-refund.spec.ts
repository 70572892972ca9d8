import { TronWeb } from 'tronweb';
import { createChain } from '../lib/chain';
import { devnetPay, expect, expectAccessibleHere, refundedSale, SIZES, screenshotPath, test } from './fixtures';

test.use({ withWorker: true });

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/**
 * A refund's claim page (issue 36, docs/refunds.md): the merchant refunds part of a sale paid on
 * the devnet through the API without an address; the customer opens the claim link, is told what
 * is wrong with a mistyped address under the field, enters theirs, and follows the refund to its
 * transfer once the merchant has topped it up. The worker sends it; the page only reads.
 */
for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });

    test("a customer enters their address at a refund's claim link and follows it to the transfer", async ({ page, stack }) => {
      const { merchant, key } = await stack.app.createMerchant({ targetWallet: randomAddress() });
      await stack.app.prisma.merchant.update({ where: { id: merchant.id }, data: { storeName: 'Teapot Corner', supportEmail: 'help@teapot.example' } });
      const { sale, refund } = await refundedSale(stack, key);

      await page.goto(refund.claim_url.replace(/^https?:\/\/[^/]+/, stack.app.baseUrl));
      const status = page.getByTestId('refund-status');
      await expect(status.getByRole('heading', { name: 'Enter your address to receive it' })).toBeVisible();
      await expect(page.getByTestId('refund-amount')).toHaveText('12.5 TRX');
      await expect(page.getByText('Teapot Corner')).toBeVisible();
      await expect(page.getByText(`For payment #${sale.id}`)).toBeVisible();
      await page.screenshot({ path: screenshotPath(`refund-claim-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a refund claim page');

      // A mistyped address: said under the field, which keeps what was typed; nothing is saved.
      const field = page.getByLabel('Your Tron address');
      const customer = randomAddress();
      await field.fill(customer.slice(0, -1) + (customer.endsWith('a') ? 'b' : 'a'));
      await page.getByRole('button', { name: 'Send my refund to this address' }).click();
      await expect(page.getByRole('alert').filter({ hasText: /wrong checksum/ })).toBeVisible();
      await expect(field).toHaveAttribute('aria-invalid', 'true');
      await page.screenshot({ path: screenshotPath(`refund-claim-refused-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a refund claim page with a refused address');

      await field.fill(customer);
      await page.getByRole('button', { name: 'Send my refund to this address' }).click();
      await expect(status.getByRole('heading', { name: 'Being prepared by the merchant' })).toBeVisible();
      await expect(page.getByTestId('refund-address')).toHaveText(customer);
      await expect(field, 'the address cannot be changed by the customer').toHaveCount(0);

      // The merchant tops the refund's payout up; the worker sends it, and the page follows by itself.
      const funded = (await stack.app.api(`/refund/${refund.id}`, key)).json;
      expect(funded.status).toBe('WAITING_FUNDS');
      await devnetPay(stack, funded.topup_address, String(funded.topup_amount), 'TRX');
      // Exactly: a heading's name is matched as a substring by default, and "Being sent" (SENDING) holds "sent"; a run
      // on a busy machine read the refund's hash while it was still being sent, and found none (2026-12-05).
      await expect(status.getByRole('heading', { name: 'Sent', exact: true })).toBeVisible({ timeout: 60_000 });
      const sent = (await stack.app.api(`/refund/${refund.id}`, key)).json;
      await expect(status.getByText(sent.trn_hash)).toBeVisible();
      const chain = createChain({ fullNodeUrl: stack.devnet.url, apiKey: null, usdtContract: stack.devnet.usdtContract, txExpirationMs: 60_000 });
      expect(await chain.getTrxBalance(customer), 'the customer received exactly the amount').toBe(12_500_000n);
      await page.screenshot({ path: screenshotPath(`refund-sent-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a sent refund');
    });
  });
}
