import { TronWeb } from 'tronweb';
import { signUp, strictReauthTest } from './dashboardSession';
import { expect, expectAccessibleHere, SIZES, screenshotPath } from './fixtures';

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

// Every sign-in counts as old (DASHBOARD_REAUTH_MINUTES=0), so each fund-moving change asks for the password.
// The stack has a devnet, because a payout is quoted from the node.
const test = strictReauthTest;

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile });

    test('a fund-moving change asks for the password, then the wallet change is announced', async ({ page, app }) => {
      const { password, email } = await signUp(page, app.baseUrl);
      // A first wallet is not announced as a change (issue 26): this account had one before.
      await app.prisma.merchant.update({ where: { email }, data: { targetWalletAddress: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL' } });
      await page.reload();

      await test.step('cancelling the password dialog changes nothing', async () => {
        await page.getByLabel('Target wallet address').fill(WALLET);
        await page.getByRole('button', { name: 'Save settings' }).click();
        const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
        await expect(dialog.getByLabel('Password')).toBeVisible();
        // A centred modal, not pinned to the top left corner.
        const box = (await dialog.boundingBox())!;
        const view = page.viewportSize()!;
        expect(Math.abs(box.x + box.width / 2 - view.width / 2)).toBeLessThan(2);
        expect(Math.abs(box.y + box.height / 2 - view.height / 2)).toBeLessThan(2);
        await expectAccessibleHere(page, 'the password dialog');
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await expect(page.getByText('Confirm your password to make this change.')).toBeVisible();
        await expectAccessibleHere(page, 'settings after a cancelled password dialog');
      });

      await test.step('the password confirms the change; every page then says the wallet changed', async () => {
        await page.getByRole('button', { name: 'Save settings' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Password').fill(password);
        await page.screenshot({ path: screenshotPath(`dashboard-reauth-${size.name}`), fullPage: true });
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
        await page.reload();
        await expect(page.getByRole('alert').filter({ hasText: 'Your payout wallet was changed' })).toContainText(WALLET);
      });

      await test.step('saving the payment page profile asks too (issue 34): cancelled it changes nothing, confirmed it is saved', async () => {
        const profile = page.locator('form').filter({ has: page.getByRole('button', { name: 'Save profile' }) });
        await profile.getByLabel('Store name').fill('Mug Shop');
        await profile.getByLabel('Support page URL').fill('https://mug-shop.example/help');
        await profile.getByRole('button', { name: 'Save profile' }).click();
        const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await expect(profile.getByText('Confirm your password to make this change.')).toBeVisible();
        await profile.getByRole('button', { name: 'Save profile' }).click();
        await dialog.getByLabel('Password').fill(password);
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(dialog).toBeHidden();
        await expect(profile.getByRole('status').filter({ hasText: 'Profile saved.' })).toBeVisible();
        await page.screenshot({ path: screenshotPath(`dashboard-reauth-profile-${size.name}`), fullPage: true });
        await page.reload();
        await expect(page.getByLabel('Store name')).toHaveValue('Mug Shop');
        await expect(page.getByLabel('Support page URL')).toHaveValue('https://mug-shop.example/help');
      });

      await test.step('showing the webhook secret asks too; a wrong password is said in the dialog, which stays open', async () => {
        await page.getByRole('button', { name: 'Show secret' }).click();
        const dialog = page.getByRole('dialog');
        await dialog.getByLabel('Password').fill('not the password');
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(dialog.getByRole('alert')).toHaveText('Wrong password.');
        await expect(dialog).toBeVisible();
        await page.screenshot({ path: screenshotPath(`dashboard-reauth-wrong-password-${size.name}`) });
        await expectAccessibleHere(page, 'the password dialog saying the password was wrong');
        await dialog.getByLabel('Password').fill(password);
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(dialog).toBeHidden();
        await expect(page.getByRole('button', { name: 'Hide secret' })).toBeVisible();
      });

      await test.step('creating a mass payout asks for the password too', async () => {
        await page.getByRole('link', { name: 'Invoices' }).click();
        await page.getByRole('link', { name: 'New mass payout' }).click();
        const form = page.getByRole('form', { name: 'New mass payout' });
        await form.getByLabel('Payout token').selectOption('TRX');
        await form.getByLabel(/^Targets/).fill(`${randomAddress()}, 1.5`);
        await form.getByRole('button', { name: 'Estimate cost' }).click();
        await expect(page.getByTestId('payout-estimate-topup')).toBeVisible();
        await form.getByRole('button', { name: 'Create payout' }).click();
        const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
        await dialog.getByLabel('Password').fill('still not the password');
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(dialog.getByRole('alert')).toHaveText('Wrong password.');
        await dialog.getByLabel('Password').fill(password);
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(form.getByRole('status', { name: 'Created payout' })).toContainText('Payout created as invoice #');
      });

      await test.step('creating an API key asks too; a cancelled dialog and every other refusal are said on the page', async () => {
        await page.getByRole('link', { name: 'API keys' }).click();
        const createKey = async (label: string) => {
          await page.getByLabel('Label').fill(label);
          await page.getByRole('button', { name: 'Create key' }).click();
        };
        const refusal = page.locator('#create-key-error');
        await createKey('shop backend');
        const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        // The refusal the dialog answered (403, reauth_required) stays on the page: before, nothing was said.
        await expect(refusal).toHaveText('Confirm your password to make this change.');
        await expect(page.getByLabel('New API key')).toHaveCount(0);
        await page.screenshot({ path: screenshotPath(`dashboard-keys-reauth-cancelled-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the API keys page after a cancelled password dialog');

        // A wrong password is said in the dialog, which stays open; the right one creates the key.
        await createKey('shop backend');
        await dialog.getByLabel('Password').fill('not it');
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(dialog.getByRole('alert')).toHaveText('Wrong password.');
        await dialog.getByLabel('Password').fill(password);
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(page.getByLabel('New API key')).toHaveText(/^tk_/);
        await expect(refusal).toHaveCount(0);
        await expect(page.getByRole('table', { name: 'API keys' }).getByText('shop backend')).toBeVisible();
        await expectAccessibleHere(page, 'the API keys page with a new key');

        // Any other refusal is said too: the server failing (the browser is given the 500 a broken
        // database gives, as JSON), and too many requests.
        for (const [status, detail] of [[500, 'Internal server error.'], [429, 'Too many requests: try again in 30 s.']] as const) {
          await page.route('**/dashboard/api/keys', (route) => (route.request().method() === 'POST' ? route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ detail }) }) : route.fallback()));
          await createKey(`key after ${status}`);
          await expect(refusal).toHaveText(detail);
          await page.unroute('**/dashboard/api/keys');
        }
        await page.screenshot({ path: screenshotPath(`dashboard-keys-error-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the API keys page saying a request failed');
      });

      await test.step('revoking a key asks for the password too (issue 34)', async () => {
        page.once('dialog', (confirm) => confirm.accept());
        await page.getByRole('button', { name: 'Revoke shop backend' }).click();
        const dialog = page.getByRole('dialog', { name: 'This change needs your password.' });
        await dialog.getByLabel('Password').fill(password);
        await dialog.getByRole('button', { name: 'Confirm' }).click();
        await expect(dialog).toBeHidden();
        await expect(page.getByRole('table', { name: 'API keys' }).getByText(/^Revoked /)).toBeVisible();
        await expect(page.getByRole('button', { name: 'Revoke shop backend' })).toHaveCount(0);
      });
    });
  });
}
