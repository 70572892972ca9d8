import { signUp, strictReauthTest } from './dashboardSession';
import { expect, expectAccessible, screenshotBothSizes } from './fixtures';

// Every sign-in counts as old here, so each money-moving change asks again.
const test = strictReauthTest;

test('a merchant adds a passkey; sign-in, a money-moving change and removing it then take the passkey (issue 40)', async ({ page, app }) => {
  // The dashboard's configured origin (no NEXTAUTH_URL or PUBLIC_BASE_URL in tests: http://localhost:PORT) is the
  // relying party: a passkey is for a domain name, never an IP address, so the browser opens it by that name.
  const base = app.baseUrl.replace('127.0.0.1', 'localhost');
  // Chromium's virtual authenticator (DevTools protocol): a platform authenticator that holds
  // discoverable credentials and verifies the user without asking.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  const { email, password } = await signUp(page, base);
  const card = page.getByRole('region', { name: 'Two-factor sign-in' });

  await test.step('add a passkey: the password again, the browser prompt, the recovery codes shown once', async () => {
    await expect(card.getByTestId('two-factor-state')).toContainText('Off');
    await card.getByLabel('Passkey name (optional)').fill('Laptop');
    await card.getByRole('button', { name: 'Add a passkey' }).click();
    const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await expect(card.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
    await expect(card.getByRole('list', { name: 'Passkeys' }).getByRole('listitem')).toHaveText([/Laptop.*last used never/]);
    await expect(card.getByTestId('two-factor-state')).toContainText('On: signing in and money-moving changes ask for a passkey. 10 recovery codes left.');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe('localhost');
    await expectAccessible(page, 'settings with a passkey and the recovery codes shown');
    await screenshotBothSizes(page, 'dashboard-passkeys');
  });

  await test.step('a money-moving change asks for the password and takes the passkey', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('shop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'This change needs your password and a code or passkey.' });
    await dialog.getByLabel('Password').fill(password);
    await expectAccessible(page, 'the password-and-passkey dialog');
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await expect(page.getByRole('status').getByLabel('New API key')).toContainText('tk_');
  });

  await test.step('sign-in offers the passkey after the password', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('button', { name: 'Use a passkey' })).toBeVisible();
    await expectAccessible(page, 'sign-in offering a passkey');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  await test.step('rename the passkey: a label, the session suffices', async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await expect(card.getByRole('list', { name: 'Passkeys' })).toContainText(/Laptop.*last used 20/);
    await card.getByRole('button', { name: 'Rename the passkey Laptop' }).click();
    const form = card.getByRole('form', { name: 'Rename the passkey Laptop' });
    await form.getByLabel('New name').fill('Work laptop');
    await expectAccessible(page, 'settings renaming a passkey');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(card.getByRole('list', { name: 'Passkeys' })).toContainText('Work laptop');
  });

  await test.step('removing the passkey asks for the password and the passkey, however recent the sign-in', async () => {
    page.once('dialog', (d) => void d.accept());
    await card.getByRole('button', { name: 'Remove the passkey Work laptop' }).click();
    const dialog = page.getByRole('dialog', { name: 'This change needs your password and a code or passkey.' });
    await dialog.getByLabel('Password').fill(password);
    await dialog.getByRole('button', { name: 'Use a passkey' }).click();
    await expect(card.getByText('No passkeys.')).toBeVisible();
    await expect(card.getByTestId('two-factor-state')).toContainText('Off');
  });
});
