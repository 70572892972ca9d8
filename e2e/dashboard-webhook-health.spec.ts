import { issueApiKey } from '@/lib/auth/apiKeys';
import { startHookReceiver } from '../test/helpers/http';
import { signUp } from './dashboardSession';
import { devnetPay, expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

// The invoice is paid on the devnet and its webhook sent by the real worker.
test.use({ withWorker: true });

test('a failing webhook endpoint is on the overview until it accepts a delivery again (issue 38)', async ({ page, stack }) => {
  const { app } = stack;
  const { email } = await signUp(page, app.baseUrl);
  await page.getByLabel('Target wallet address').fill(WALLET);
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const merchant = await app.prisma.merchant.findUniqueOrThrow({ where: { email } });
  const key = await issueApiKey(app.prisma, merchant.id, 'e2e');

  // The shop's endpoint is down: nothing listens on its port.
  const endpoint = await startHookReceiver({ down: true });
  const hook = endpoint.url;
  const created = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'], webhook_url: hook } });
  expect(created.status).toBe(200);
  await page.goto(`${app.baseUrl}/dashboard`);
  await expect(page.getByTestId('webhook-health')).toHaveCount(0);

  await devnetPay(stack, created.json.address, '40', 'TRX');
  await expect
    .poll(() => app.prisma.webhookDelivery.count({ where: { invoiceId: created.json.id, status: 'FAILED' } }), { timeout: 60_000, message: 'the worker tried the endpoint and failed' })
    .toBe(1);
  await page.reload();
  const notice = page.getByTestId('webhook-health');
  await expect(notice.getByRole('heading', { name: 'Webhook deliveries are failing' })).toBeVisible();
  await expect(notice).toContainText(`${hook}: the latest delivery failed (since `);
  // Retries are off for a new account: the notice says so and where to turn them on.
  await expect(notice).toContainText('Retries are off, so a failed delivery is not sent again');
  await expect(notice.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/dashboard/settings');
  await screenshotBothSizes(page, 'dashboard-webhook-failing');
  await expectAccessible(page, 'the overview with a failing webhook endpoint');

  // The endpoint is back; the merchant resends the delivery from the log, and the notice goes.
  await endpoint.up();
  try {
    await notice.getByRole('link', { name: 'Webhooks' }).click();
    const log = page.getByRole('table', { name: 'Webhook deliveries' });
    // Each row says what it was about (issue 38).
    await expect(log.getByTestId('delivery-event')).toHaveText(['Invoice completed']);
    await log.getByRole('button', { name: /^Resend/ }).first().click();
    await expect.poll(() => endpoint.hooks.length, { timeout: 60_000, message: 'the resent delivery reached the endpoint' }).toBe(1);
    await expect.poll(() => app.prisma.webhookDelivery.count({ where: { invoiceId: created.json.id, status: 'DELIVERED' } }), { timeout: 30_000 }).toBe(1);
    await page.goto(`${app.baseUrl}/dashboard`);
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    await expect(page.getByTestId('webhook-health')).toHaveCount(0);
  } finally {
    endpoint.close();
  }
});
