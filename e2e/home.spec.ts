import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

test('the home page renders and points integrators at the API', async ({ page, stack }) => {
  await page.goto(stack.app.baseUrl);
  await expect(page.getByRole('heading', { name: 'Tron Invoicing' })).toBeVisible();
  await expect(page.getByText('/v1/api')).toBeVisible();
  await screenshotBothSizes(page, 'home');
  await expectAccessible(page, 'the home page');
});
