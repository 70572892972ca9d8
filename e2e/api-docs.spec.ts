import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

test('the API reference at /docs renders every operation of /openapi.json, offline', async ({ page, stack }) => {
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.goto(`${stack.app.baseUrl}/docs`);
  const operations = page.locator('.opblock');
  // The ten operations of the spec, the seven added at paths it does not use (refunds and held
  // payments, issue 36), and the six webhooks a merchant receives (OpenAPI 3.1 `webhooks`).
  await expect(operations).toHaveCount(23);
  for (const path of [
    '/payment/create', '/payment/list', '/payment/{id}/cancel', '/payment/get/{id}', '/payment/multiple_transfer/create', '/payment/multiple_transfer/calculate', '/transaction/list', '/transaction/{trn_hash}', '/merchant', '/rates',
    '/payment/{id}/refund', '/payment/{id}/refunds', '/refund/{id}', '/refund/{id}/cancel', '/held_payment/list', '/held_payment/{trn_hash}', '/held_payment/{trn_hash}/release',
  ]) {
    await expect(page.locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replace(/[{}/]/g, '\\$&')}$`) })).toHaveCount(1);
  }
  for (const hook of ['invoice', 'payment.held', 'refund.created', 'refund.claimed', 'refund.sent', 'refund.failed']) await expect(page.locator('.opblock-summary-path', { hasText: new RegExp(`^${hook.replace('.', '\\.')}$`) })).toHaveCount(1);
  await expect(page.locator('.opblock-summary-description', { hasText: 'A payment is held for the merchant to forward or return (opt-in)' })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Authorize' })).toBeVisible();
  // Opening an operation shows its documented responses, the {"detail"} errors among them.
  await page.locator('.opblock-get', { hasText: '/merchant' }).locator('.opblock-summary-control').click();
  const merchant = page.locator('.opblock-get', { hasText: '/merchant' });
  await expect(merchant.locator('.response[data-code="200"]')).toBeVisible();
  await expect(merchant.locator('.response[data-code="403"]')).toBeVisible();
  await screenshotBothSizes(page, 'api-docs');
  // No rule turned off: Swagger UI's own faults are mended by the page (app/docs/[asset]/route.ts).
  await expectAccessible(page, 'the API reference with an operation open');
  expect(requested.filter((u) => !u.startsWith(stack.app.baseUrl)), 'nothing fetched from another origin').toEqual([]);
});
