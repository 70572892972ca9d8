import { expect, expectAccessible, screenshotBothSizes, test } from './fixtures';

test('the home page renders and points integrators at the API', async ({ page, stack }) => {
  await page.goto(stack.app.baseUrl);
  await expect(page.getByRole('heading', { name: 'Tron Invoicing' })).toBeVisible();
  await expect(page.getByText('/v1/api')).toBeVisible();
  await screenshotBothSizes(page, 'home');
  await expectAccessible(page, 'the home page');
});

test('the accessibility check fails on a page that breaks a rule, naming the rule and the element', async ({ page, stack }) => {
  // The check every spec relies on (expectAccessible) must be able to fail: the home page with an
  // image that has no text alternative, at both sizes.
  await page.goto(stack.app.baseUrl);
  await page.evaluate(() => {
    const img = document.createElement('img');
    img.id = 'no-alt';
    img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
    (document.querySelector('main') ?? document.body).append(img);
  });
  const failure = await expectAccessible(page, 'a page with an image without alt').then(() => null, (err: Error) => err.message);
  const own = page.viewportSize()!;
  expect(failure).toContain(`[${own.width}x${own.height}] image-alt (critical)`);
  expect(failure).toContain('[390x844] image-alt (critical)');
  expect(failure).toContain('#no-alt');
});
