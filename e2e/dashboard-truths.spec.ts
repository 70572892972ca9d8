import { randomBytes } from 'node:crypto';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { signUp } from './dashboardSession';
import { expect, expectAccessibleHere, SIZES, screenshotPath, test } from './fixtures';

// Issue 26, for the merchant: webhook retries are a setting, every attempt is in the log, held
// money is on the overview, a first wallet is no "change", a bad checksum is named as such.
// At desktop and phone size.

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
// WALLET with its last character changed: the right shape, a wrong checksum.
const BAD_CHECKSUM = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPe';
const PAYER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });

    test('settings, the delivery log and the overview tell the merchant the truth', async ({ page, stack }) => {
      const { app } = stack;
      const { email } = await test.step('sign up', () => signUp(page, app.baseUrl));
      const merchant = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });

      await test.step('a bad checksum is named as such', async () => {
        await page.getByLabel('Target wallet address').fill(BAD_CHECKSUM);
        await page.getByRole('button', { name: 'Save settings' }).click();
        await expect(page.getByText('This address has a wrong checksum: a character is mistyped or missing.')).toBeVisible();
        await expect(page.getByText('T..., 34 characters')).toHaveCount(0);
        await expectAccessibleHere(page, 'settings refusing a bad checksum');
      });

      await test.step('a first wallet is set without a "changed" warning; retries and held-payment events are turned on', async () => {
        const retries = page.getByLabel('Retry failed webhooks');
        const heldEvents = page.getByLabel('Send a webhook when a payment is held');
        await expect(retries).not.toBeChecked();
        await expect(heldEvents).not.toBeChecked();
        await page.getByLabel('Target wallet address').fill(WALLET);
        await retries.check();
        await heldEvents.check();
        await page.getByRole('button', { name: 'Save settings' }).click();
        await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
        await page.reload();
        await expect(page.getByLabel('Target wallet address')).toHaveValue(WALLET);
        await expect(page.getByLabel('Retry failed webhooks')).toBeChecked();
        await expect(page.getByLabel('Send a webhook when a payment is held')).toBeChecked();
        await expect(page.getByText('Your payout wallet was changed')).toHaveCount(0);
        await expect(page.getByText('If this was not you')).toHaveCount(0);
        expect(await app.prisma.merchant.findUniqueOrThrow({ where: { id: merchant.id } })).toMatchObject({ webhookRetries: true, webhookHeldEvents: true });
        await page.screenshot({ path: screenshotPath(`dashboard-settings-retries-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'settings saved');
      });

      // An invoice that was canceled and then paid: the worker holds that payment (written here as it would).
      const key = await issueApiKey(app.prisma, merchant.id, 'e2e');
      const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
      expect(created.status).toBe(200);
      const invoiceId = created.json.id as number;
      expect((await app.api(`/payment/${invoiceId}/cancel`, key, { method: 'DELETE' })).status).toBe(200);
      const txid = randomBytes(32).toString('hex');
      await app.prisma.transaction.create({
        data: {
          merchantId: merchant.id, invoiceId, type: 'PAYMENT', trnHash: txid, chainRef: `${txid}:0`, fromAddress: PAYER, toAddress: created.json.address,
          amountUnits: 40_000_000n, currency: 'TRX', paymentState: 'HELD', heldReason: 'invoice canceled: the merchant decides whether to forward or return it', blockNumber: 1,
        },
      });

      await test.step('every attempt of a retried webhook is in the delivery log', async () => {
        const base = { merchantId: merchant.id, invoiceId, url: 'https://shop.example/hook', payload: { id: invoiceId } };
        const first = await app.prisma.webhookDelivery.create({ data: { ...base, eventKey: `invoice:${invoiceId}:CANCELED-e2e`, status: 'FAILED', attempts: 1, error: 'connect ECONNREFUSED' } });
        const second = await app.prisma.webhookDelivery.create({
          data: { ...base, eventKey: `retry:${first.id}:2`, retryOfId: first.id, attempt: 2, status: 'FAILED', attempts: 1, responseStatus: 503, responseBody: '{"error": "shop is down for maintenance"}', latencyMs: 12, error: 'receiver answered 503' },
        });
        await app.prisma.webhookDelivery.create({ data: { ...base, eventKey: `retry:${first.id}:3`, retryOfId: first.id, attempt: 3, notBefore: new Date(Date.now() + 20 * 60_000) } });
        await page.goto(`${app.baseUrl}/dashboard/webhooks`);
        const log = page.getByRole('table', { name: 'Webhook deliveries' });
        await expect(log.getByText(`attempt 2, retry of ${first.id}`)).toBeVisible();
        await expect(log.getByText(`attempt 3, retry of ${first.id}`)).toBeVisible();
        await expect(log.getByText('receiver answered 503')).toBeVisible();
        await expect(log.getByText(/^not before .* UTC$/)).toBeVisible();
        await page.screenshot({ path: screenshotPath(`dashboard-webhook-retries-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the delivery log with retried attempts');

        // Each attempt can be opened: the payload it sent and what the receiver answered.
        await log.getByRole('button', { name: `View delivery ${second.id}` }).click();
        const detail = page.getByTestId(`delivery-detail-${second.id}`);
        await expect(detail.getByRole('region', { name: `Payload of delivery ${second.id}` })).toHaveText(JSON.stringify({ id: invoiceId }, null, 2));
        await expect(detail).toContainText(`webhook-id invoice:${invoiceId}:CANCELED-e2e`);
        await expect(detail).toContainText('HTTP 503');
        await expect(detail.getByRole('region', { name: `Response to delivery ${second.id}` })).toHaveText('{"error": "shop is down for maintenance"}');
        // Shown under the table at the card's width: on a phone nothing is off screen and the page does not widen.
        await expect(detail).toBeInViewport();
        expect(await page.evaluate(() => document.documentElement.scrollWidth - Math.min(window.innerWidth, window.visualViewport?.width ?? window.innerWidth))).toBeLessThanOrEqual(0);
        await page.screenshot({ path: screenshotPath(`dashboard-webhook-payload-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the delivery log with an attempt opened');
        await log.getByRole('button', { name: `View delivery ${first.id}` }).click();
        await expect(page.getByTestId(`delivery-detail-${first.id}`)).toContainText('No answer: connect ECONNREFUSED');
        await expect(page.getByTestId(`delivery-detail-${second.id}`)).toHaveCount(0);
      });

      await test.step('the overview says money is held, how much, and links to it', async () => {
        await page.goto(`${app.baseUrl}/dashboard`);
        const notice = page.getByRole('region', { name: 'Money held for you: 40 TRX' });
        await expect(notice).toBeVisible();
        await expect(notice).toContainText('until you forward or return it');
        await page.screenshot({ path: screenshotPath(`dashboard-held-notice-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the overview with money held');
        await notice.getByRole('link', { name: `40 TRX on invoice #${invoiceId}: forward or return` }).click();
        await expect(page).toHaveURL(new RegExp(`/dashboard/invoices/${invoiceId}$`));
        await expect(page.getByRole('button', { name: 'Release 40 TRX…' })).toBeVisible();
        await expectAccessibleHere(page, 'an invoice with a held payment to release');
      });

      await test.step('released, the notice is gone', async () => {
        await app.prisma.transaction.updateMany({ where: { trnHash: txid }, data: { paymentState: 'FORWARDING', releaseAction: 'FORWARD' } });
        await page.goto(`${app.baseUrl}/dashboard`);
        await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
        await expect(page.getByRole('region', { name: /Money held for you/ })).toHaveCount(0);
      });
    });
  });
}
