import { linkKeyWith } from '@/lib/invoices/linkKey';
import { expect, expectAccessibleHere, screenshotPath, test, type Stack } from './fixtures';

// Issue 26: when the customer pays the service fee (client_commission), the page says what the
// amount is made of instead of a bare "Send exactly 25.25 USDT". FORWARDING_FEE_PERCENT is 1 in tests.

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, locale: 'en-US', line: 'Amount 25 USDT + service fee 0.25 USDT = 25.25 USDT' },
  { name: 'phone-es', viewport: { width: 360, height: 740 }, isMobile: true, locale: 'es-ES', line: 'Importe 25 USDT + comisión del servicio 0.25 USDT = 25.25 USDT' },
] as const;

async function openInvoice(stack: Stack, key: string, clientCommission: boolean): Promise<{ id: number; url: string }> {
  const res = await stack.app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 25, currencies: ['USDT', 'TRX'], client_commission: clientCommission } });
  expect(res.status).toBe(200);
  const id = res.json.id as number;
  return { id, url: `${stack.app.baseUrl}/payment/${id}?k=${linkKeyWith(stack.app.env.MASTER_KEY!, id)}` };
}

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile, locale: size.locale });

    test('the customer paying the fee sees amount + service fee = total; otherwise no fee line', async ({ page, stack }) => {
      const { key } = await stack.app.createMerchant();
      const withFee = await openInvoice(stack, key, true);
      await page.goto(withFee.url);
      await expect(page.getByTestId('pay-amount')).toHaveText('25.25 USDT');
      await expect(page.getByTestId('fee-line')).toHaveText(size.line);
      await page.screenshot({ path: screenshotPath(`payment-fee-line-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a payment page with the fee line');
      // Each token has its own line: 100 TRX at 0.25 USD plus 1 %.
      await page.locator('label', { hasText: /^TRX$/ }).click();
      await expect(page.getByTestId('pay-amount')).toHaveText('101 TRX');
      await expect(page.getByTestId('fee-line')).toContainText('100 TRX');
      await expect(page.getByTestId('fee-line')).toContainText('= 101 TRX');

      // The merchant pays the fee (out of what is forwarded): the customer is asked for 25 USDT, no fee line.
      const merchantPays = await openInvoice(stack, key, false);
      await page.goto(merchantPays.url);
      await expect(page.getByTestId('pay-amount')).toHaveText('25 USDT');
      await expect(page.getByTestId('fee-line')).toHaveCount(0);
      await expectAccessibleHere(page, 'a payment page without a fee line');
    });
  });
}
