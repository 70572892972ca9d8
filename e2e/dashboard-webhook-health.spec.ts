import { issueApiKey } from '@/lib/auth/apiKeys';
import { startHookReceiver } from '../test/helpers/http';
import { signUp } from './dashboardSession';
import { devnetPay, expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

// The invoice is paid on the devnet and its webhook sent by the real worker, which e-mails the
// merchant through SMTP_URL (a local sink) when the endpoint keeps failing.
test.use({ withWorker: true, withSmtp: true });

test('a failing webhook endpoint is on the overview and, at its third failure in a row, in an e-mail, until it accepts a delivery again (issue 38)', async ({ page, stack }) => {
  const { app } = stack;
  const smtp = stack.smtp!;
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

  // One failure is on the overview; the e-mail waits for the third in a row (FAILING_MAIL_AFTER, docs/webhooks.md).
  const mails = () => smtp.messages.filter((m) => m.includes(`Webhook deliveries to ${hook} are failing`));
  expect(mails()).toHaveLength(0);

  // Still down, the merchant resends the delivery from the log twice: three failures in a row.
  await notice.getByRole('link', { name: 'Webhooks' }).click();
  const log = page.getByRole('table', { name: 'Webhook deliveries' });
  // Each row says what it was about (issue 38).
  await expect(log.getByTestId('delivery-event')).toHaveText(['Invoice completed']);
  for (const failed of [2, 3]) {
    await log.getByRole('button', { name: /^Resend/ }).first().click();
    await expect
      .poll(() => app.prisma.webhookDelivery.count({ where: { invoiceId: created.json.id, status: 'FAILED' } }), { timeout: 60_000, message: `the worker sent the resend and it failed (${failed} in a row)` })
      .toBe(failed);
  }
  // The worker queued one e-mail to the merchant and its mail job sent it.
  await expect.poll(() => mails().length, { timeout: 60_000, message: 'the e-mail about the failing endpoint reached the SMTP server' }).toBe(1);
  const mail = mails()[0]!;
  expect(mail.split('\n')).toContain(`To: ${email}`);
  expect(mail).toContain(`The last 3 webhook deliveries to ${hook} failed`);
  expect(mail).toContain('The last answer: connect ECONNREFUSED');
  expect(mail).toContain('Retries are off, so a failed event is not sent again');
  expect(mail).toMatch(/^http:\/\/\S+\/dashboard\/webhooks$/m);
  // And the overview counts the run.
  await page.goto(`${app.baseUrl}/dashboard`);
  await expect(notice).toContainText(`${hook}: the last 3 deliveries failed (since `);
  await expectAccessible(page, 'the overview with an endpoint failing three times in a row');

  // The endpoint is back; the merchant resends the delivery from the log, and the notice goes.
  await endpoint.up();
  try {
    await notice.getByRole('link', { name: 'Webhooks' }).click();
    await log.getByRole('button', { name: /^Resend/ }).first().click();
    await expect.poll(() => endpoint.hooks.length, { timeout: 60_000, message: 'the resent delivery reached the endpoint' }).toBe(1);
    await expect.poll(() => app.prisma.webhookDelivery.count({ where: { invoiceId: created.json.id, status: 'DELIVERED' } }), { timeout: 30_000 }).toBe(1);
    await page.goto(`${app.baseUrl}/dashboard`);
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
    await expect(page.getByTestId('webhook-health')).toHaveCount(0);
    // One e-mail for the run of failures: the accepted delivery ended it without another.
    expect(mails()).toHaveLength(1);
  } finally {
    endpoint.close();
  }
});
