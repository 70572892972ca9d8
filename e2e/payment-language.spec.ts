import { linkKeyWith } from '@/lib/invoices/linkKey';
import { expect, expectAccessibleHere, screenshotPath, test, type Stack } from './fixtures';

// Issue 26: a visible language picker on the payment page (the browser's language stays the
// default), and a static address page worded for static payments. At desktop and phone size.

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false },
  { name: 'phone', viewport: { width: 360, height: 740 }, isMobile: true },
] as const;

async function openUrl(stack: Stack, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await stack.app.api('/payment/create', key, { method: 'POST', body });
  expect(res.status).toBe(200);
  const id = res.json.id as number;
  return `${stack.app.baseUrl}/payment/${id}?k=${linkKeyWith(stack.app.env.MASTER_KEY!, id)}`;
}

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile, locale: 'en-US' });

    test('the language picker switches the page to Spanish and back, and the choice stays', async ({ page, stack }) => {
      const { key } = await stack.app.createMerchant();
      const url = await openUrl(stack, key, { type: 'SINGLE', amount: 10, currencies: ['TRX'] });
      await page.goto(url);
      const picker = page.getByRole('navigation', { name: 'Language' });
      await expect(picker.getByRole('button', { name: 'English' })).toHaveAttribute('aria-pressed', 'true');
      await expect(page.getByRole('heading', { name: 'Waiting for your payment' })).toBeVisible();
      await expectAccessibleHere(page, 'a new invoice\'s payment page in English');

      await picker.getByRole('button', { name: 'Español' }).click();
      await expect(page.getByRole('heading', { name: 'Esperando tu pago' })).toBeVisible();
      await expect(page.getByRole('navigation', { name: 'Idioma' }).getByRole('button', { name: 'Español' })).toHaveAttribute('aria-pressed', 'true');
      await expect(page.locator('div[lang="es"]')).toHaveCount(1);
      await expect(page).toHaveTitle(/^Pago n\.º \d+$/);
      await page.screenshot({ path: screenshotPath(`payment-language-es-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'the payment page in Spanish');
      // The choice outlives the page: another invoice opens in Spanish although the browser asks for English.
      await page.goto(await openUrl(stack, key, { type: 'SINGLE', amount: 5, currencies: ['TRX'] }));
      await expect(page.getByRole('heading', { name: 'Esperando tu pago' })).toBeVisible();

      await page.getByRole('navigation', { name: 'Idioma' }).getByRole('button', { name: 'English' }).click();
      await expect(page.getByRole('heading', { name: 'Waiting for your payment' })).toBeVisible();
    });

    test('a static address says it takes any amount at any time, not "Waiting for your payment"', async ({ page, stack }) => {
      const { key } = await stack.app.createMerchant();
      await page.goto(await openUrl(stack, key, { type: 'MULTIPLE', currencies: ['TRX', 'USDT'] }));
      await expect(page.getByRole('heading', { name: 'Ready for your payments' })).toBeVisible();
      await expect(page.getByText('This address is reusable: send any amount, at any time.')).toBeVisible();
      await expect(page.getByText('Waiting for your payment')).toHaveCount(0);
      await page.screenshot({ path: screenshotPath(`payment-static-wording-${size.name}`), fullPage: true });
      await expectAccessibleHere(page, 'a static address\'s page');
    });
  });
}
