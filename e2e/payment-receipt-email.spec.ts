import { TronWeb } from 'tronweb';
import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

// A service that sends e-mail (SMTP_URL): only there does the payment page offer a receipt. No worker:
// nothing is paid here. (With dashboard-webhook-health's options, worker and SMTP, it would not share
// that spec's stack either: both come up in the queue together, so it starts a second one, with a
// worker for nothing; docs/testing.md, "The browser lane's stacks".)
test.use({ withSmtp: true });

test('the customer may leave an e-mail for a receipt on the payment page, and change it (issue 36)', async ({ page, stack }) => {
  const { app } = stack;
  const { key } = await app.createMerchant({ targetWallet: randomAddress() });
  const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
  const { id, paymentURL } = created.json as { id: number; paymentURL: string };
  const url = new URL(paymentURL);
  await page.goto(`${app.baseUrl}${url.pathname}${url.search}`);
  const form = page.getByRole('form', { name: 'E-mail me a receipt (optional)' });
  await expect(form).toBeVisible();
  await form.getByLabel('E-mail me a receipt (optional)').fill('not an address');
  await form.getByRole('button', { name: 'Save' }).click();
  // The browser's own check of type=email stops it first; a value it lets through is checked by the server.
  await form.getByLabel('E-mail me a receipt (optional)').fill('buyer@localhost');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByRole('alert')).toHaveText('Enter a valid e-mail address.');
  await expectAccessible(page, 'the payment page with a refused e-mail');
  await form.getByLabel('E-mail me a receipt (optional)').fill('Buyer@Example.com');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'A receipt goes to buyer@example.com when the payment completes.' })).toBeVisible();
  await expect.poll(async () => (await app.prisma.invoice.findUniqueOrThrow({ where: { id } })).customerEmail).toBe('buyer@example.com');
  await expectAccessible(page, 'the payment page with the e-mail saved');
  await screenshotBothSizes(page, 'payment-receipt-email');
  await page.getByRole('button', { name: 'Change e-mail' }).click();
  await expect(form.getByLabel('E-mail me a receipt (optional)')).toHaveValue('buyer@example.com');
  // Without the link's key (a bare /payment/<id>), nothing personal is offered.
  await page.goto(`${app.baseUrl}/payment/${id}`);
  await expect(page.getByTestId('amount-due').or(page.getByRole('heading').first())).toBeVisible();
  await expect(page.getByTestId('receipt-email')).toHaveCount(0);
});
