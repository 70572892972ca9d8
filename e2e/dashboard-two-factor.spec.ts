import { generateSync } from 'otplib';
import { signUp, strictReauthTest } from './dashboardSession';
import { expect, expectAccessible, screenshotBothSizes } from './fixtures';

/** The code an authenticator app shows `stepsAhead` 30-second steps from now (the server takes one step either side). */
const codeFor = (secret: string, stepsAhead = 0) => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });

// Every sign-in counts as old here, so each money-moving change asks again.
const test = strictReauthTest;

test('a merchant turns on two-factor sign-in; sign-in and a money-moving change then ask for a code (issue 40)', async ({ page, app }) => {
  const { email, password } = await signUp(page, app.baseUrl);
  const card = page.getByRole('region', { name: 'Two-factor sign-in' });
  let secret = '';
  let recovery: string[] = [];

  await test.step('set up: the key into the app, a code back, the recovery codes shown once', async () => {
    await expect(card.getByTestId('two-factor-state')).toContainText('Off');
    await card.getByRole('button', { name: 'Set up an authenticator app' }).click();
    // Showing a new secret is guarded like the webhook secret: the password again (no code yet: 2FA is off).
    const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    const form = card.getByRole('form', { name: 'Confirm the authenticator app' });
    secret = (await form.locator('code').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expect(form.getByRole('link', { name: 'open it in the app' })).toHaveAttribute('href', new RegExp(`^otpauth://totp/.*secret=${secret}`));
    await expectAccessible(page, 'settings with the authenticator key shown');
    await form.getByLabel('Code from the app').fill(codeFor(secret, 10));
    await form.getByRole('button', { name: 'Turn on' }).click();
    await expect(form.getByText(/Wrong code/)).toBeVisible();
    await form.getByLabel('Code from the app').fill(codeFor(secret));
    await form.getByRole('button', { name: 'Turn on' }).click();
    const codes = card.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect(codes).toHaveCount(10);
    recovery = (await codes.allTextContents()).map((c) => c.trim());
    await expect(card.getByTestId('two-factor-state')).toContainText('On');
    await expect(card.getByTestId('two-factor-state')).toContainText('10 recovery codes left');
    await expectAccessible(page, 'settings with the recovery codes shown');
    await screenshotBothSizes(page, 'dashboard-two-factor');
  });

  await test.step('a money-moving change asks for the password and a code', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('shop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'This change needs your password and a code.' });
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByLabel('Authenticator code').fill('zzzzz-zzzzz');
    await expectAccessible(page, 'the password-and-code dialog');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Wrong password or code.');
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByLabel('Authenticator code').fill(recovery[0]!);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(page.getByRole('status').getByLabel('New API key')).toContainText('tk_');
  });

  await test.step('sign-in asks for the code after the password', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText('Enter the code from your authenticator app or a recovery code, or use your passkey.')).toBeVisible();
    await expectAccessible(page, 'sign-in asking for the code');
    // The enrolment took this step's code: the next step's is the new one.
    await page.getByLabel('Authenticator code').fill(codeFor(secret, 1));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('region', { name: 'Two-factor sign-in' }).getByTestId('two-factor-state')).toContainText('9 recovery codes left');
  });
});
