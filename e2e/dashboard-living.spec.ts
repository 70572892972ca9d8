import type { Page } from '@playwright/test';
import { TronWeb } from 'tronweb';
import { tokenUnits } from '@/lib/money/tokens';
import { signInSeededMerchant } from './dashboardSession';
import { expect, expectAccessibleHere, SIZES, screenshotPath, test } from './fixtures';

// Issue 26, "a dashboard that is easy to live in": the invoices list first, statuses and types in
// words, filters and paging in the URL, a labelled Type filter, tables that work on a phone with
// addresses cut short and copyable, and money that says its unit, its minimum and what a negative
// balance means. At desktop and phone size, in a browser whose clock is 14 hours ahead of UTC
// (Kiritimati): every time the dashboard shows is UTC, and says so.

const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
const randomAddress = () => (TronWeb.createRandom() as unknown as { address: string }).address;

/** How the dashboard writes a time (components/dashboard/ui.tsx, formatTime): UTC, labelled. */
const utcText = (iso: string) => `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** Ids used by more than one element: a label's `for` then names the first one only. */
const duplicateIds = (page: Page) =>
  page.evaluate(() => {
    const seen = new Map<string, number>();
    for (const el of document.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) ?? 0) + 1);
    return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  });

/**
 * How far the page itself scrolls sideways (0: everything fits the window; wide tables scroll in
 * their own box). Against the visual viewport: a phone widens its layout viewport to content that
 * overflows (then innerWidth grows with it), so innerWidth alone would hide the overflow.
 */
const pageOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - Math.min(window.innerWidth, window.visualViewport?.width ?? window.innerWidth));

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** On a phone the filters beside the search are behind "Filters" (issue 38, item 10): opened if closed. */
async function showFilters(page: Page) {
  const button = page.getByRole('button', { name: /^Filters/ });
  if ((await button.isVisible()) && (await button.getAttribute('aria-expanded')) === 'false') await button.click();
}

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use({ viewport: size.viewport, isMobile: size.isMobile, permissions: ['clipboard-read', 'clipboard-write'], timezoneId: 'Pacific/Kiritimati' });

    test('the invoices page is built for finding, in words, with its filters in the URL, and fits a phone', async ({ page, stack }) => {
      const { app } = stack;
      const { key } = await test.step('sign in as a merchant with a wallet', () => signInSeededMerchant(page, app, WALLET, 'living'));
      // 22 invoices: 19 open, one canceled, one failed its AML check, one static address: two pages of 20.
      const ids: number[] = [];
      for (let i = 0; i < 21; i++) {
        const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'], order_id: `find-${i}` } });
        expect(res.status).toBe(200);
        ids.push(res.json.id as number);
      }
      const canceled = ids[0]!;
      expect((await app.api(`/payment/${canceled}/cancel`, key, { method: 'DELETE' })).status).toBe(200);
      const amlFailed = ids[1]!;
      // The worker's outcome of a payment that failed the check, written as it would.
      await app.prisma.invoice.update({ where: { id: amlFailed }, data: { status: 'AML_FAILED' } });
      const staticRes = await app.api('/payment/create', key, { method: 'POST', body: { type: 'MULTIPLE', currencies: ['TRX'], order_id: 'static-1' } });
      expect(staticRes.status).toBe(200);

      const table = page.getByRole('table', { name: 'Invoices' });
      await test.step('the list comes first; creating opens its own page from a button', async () => {
        await page.getByRole('link', { name: 'Invoices' }).click();
        await expect(table.getByRole('row')).toHaveCount(21);
        await expect(page.getByRole('form')).toHaveCount(0);
        // Nothing between the heading and the list but its filters: the table starts on the first screen at desktop size.
        if (size.name === 'desktop') expect((await table.boundingBox())!.y).toBeLessThan(size.viewport.height);
        if (size.name === 'phone') {
          // On a phone the first invoices are on the first screen (issue 38, item 10): a two-row header, the
          // search and a "Filters" button, the other filters behind it.
          const first = (await table.getByRole('row').nth(2).boundingBox())!;
          expect(first.y + first.height).toBeLessThanOrEqual(size.viewport.height);
          const filtersButton = page.getByRole('button', { name: 'Filters' });
          await expect(filtersButton).toHaveAttribute('aria-expanded', 'false');
          await expect(page.getByRole('combobox', { name: 'Status' })).toBeHidden();
          await page.screenshot({ path: screenshotPath('dashboard-invoices-first-screen-phone') });
          await filtersButton.click();
          await expect(filtersButton).toHaveAttribute('aria-expanded', 'true');
          await expect(page.getByRole('combobox', { name: 'Status' })).toBeVisible();
          await expectAccessibleHere(page, 'the invoices list with its filters shown on a phone');
          await filtersButton.click();
          await expect(page.getByRole('combobox', { name: 'Status' })).toBeHidden();
        } else {
          await expect(page.getByRole('button', { name: /^Filters/ })).toBeHidden();
          await expect(page.getByRole('combobox', { name: 'Status' })).toBeVisible();
        }
        await expectAccessibleHere(page, 'the invoices list');
        await page.getByRole('link', { name: 'New invoice' }).click();
        await expect(page).toHaveURL(/\/dashboard\/invoices\/new$/);
        await expect(page.getByRole('form', { name: 'New invoice' })).toBeVisible();
        await expectAccessibleHere(page, 'the new invoice form');
        await page.goBack();
        await page.getByRole('link', { name: 'New mass payout' }).click();
        await expect(page.getByRole('form', { name: 'New mass payout' })).toBeVisible();
        await expectAccessibleHere(page, 'the new mass payout form');
        await page.goBack();
        await expect(table).toBeVisible();
      });

      await test.step('every id once, so the Type filter has its label', async () => {
        expect(await duplicateIds(page)).toEqual([]);
        await showFilters(page);
        const type = page.getByRole('combobox', { name: 'Type', exact: true });
        await expect(type).toHaveCount(1);
        await expect(type.getByRole('option')).toHaveText(['Any', 'Single payment', 'Static address', 'Mass payout']);
        await expect(page.getByRole('combobox', { name: 'Status' }).getByRole('option', { name: 'Failed AML check' })).toHaveCount(1);
      });

      await test.step('statuses and types in words', async () => {
        await expect(table.getByRole('row').filter({ hasText: 'static-1' })).toContainText('Static address');
        await expect(table.getByRole('row').filter({ hasText: 'static-1' })).toContainText('Active');
        await expect(table.getByRole('row').filter({ hasText: 'find-20' })).toContainText('Single payment');
        await expect(table.getByRole('row').filter({ hasText: 'find-20' })).toContainText('10 USD');
        await expect(table).not.toContainText('SINGLE');
        await expect(table).not.toContainText('MULTIPLE');
        await expect(table).not.toContainText('ACTIVE');
        await page.screenshot({ path: screenshotPath(`dashboard-invoices-list-${size.name}`), fullPage: true });
      });

      await test.step('paging is in the URL: a reload stays on page 2', async () => {
        await page.getByRole('button', { name: 'Next' }).click();
        await expect(page).toHaveURL(/[?&]page=2(&|$)/);
        await expect(page.getByText('21–22 of 22')).toBeVisible();
        await expect(table.getByRole('row').filter({ hasText: 'Failed AML check' })).toHaveCount(1);
        await expect(table.getByRole('row').filter({ hasText: 'Canceled' })).toHaveCount(1);
        await page.reload();
        await expect(page.getByText('21–22 of 22')).toBeVisible();
        await expect(table.getByRole('row')).toHaveCount(3);
      });

      await test.step('filters are in the URL: a reload and "back" from an invoice keep them', async () => {
        await showFilters(page);
        await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Failed AML check' });
        // A filter set behind the phone's button is counted on it; on a reload with it in the URL they open by themselves.
        if (size.name === 'phone') await expect(page.getByRole('button', { name: 'Filters (1)' })).toBeVisible();
        await expect(page).toHaveURL(/[?&]status=AML_FAILED(&|$)/);
        // A filter change goes back to the first page.
        await expect(page).not.toHaveURL(/[?&]page=/);
        await expect(table.getByRole('row')).toHaveCount(2);
        await page.reload();
        await expect(page.getByRole('combobox', { name: 'Status' })).toHaveValue('AML_FAILED');
        await expect(table.getByRole('row')).toHaveCount(2);
        await page.getByLabel('Search').fill('find-1');
        await expect(page).toHaveURL(/[?&]search=find-1(&|$)/);
        await table.getByRole('link', { name: `#${amlFailed}`, exact: true }).click();
        await expect(page.getByRole('heading', { name: `Invoice #${amlFailed}` })).toBeVisible();
        await expect(page.getByTestId('invoice-status')).toHaveText('Failed AML check');
        await expectAccessibleHere(page, 'an invoice that failed its AML check');
        await page.goBack();
        await expect(page).toHaveURL(/[?&]status=AML_FAILED(&|$)/);
        await expect(page.getByRole('combobox', { name: 'Status' })).toHaveValue('AML_FAILED');
        await expect(page.getByLabel('Search')).toHaveValue('find-1');
        await expect(table.getByRole('row')).toHaveCount(2);
        await page.getByRole('combobox', { name: 'Status' }).selectOption('');
        await page.getByLabel('Search').fill('');
        await expect(page).toHaveURL(/\/dashboard\/invoices$/);
      });

      await test.step('an order id typed in Search alone finds its invoice', async () => {
        await expect(table.getByRole('row')).toHaveCount(21);
        await page.getByLabel('Search').fill('find-7');
        await expect(page).toHaveURL(/\/dashboard\/invoices\?search=find-7$/);
        await expect(table.getByRole('row')).toHaveCount(2);
        await expect(table.getByRole('row').nth(1)).toContainText('find-7');
        await expect(table.getByRole('link', { name: `#${ids[7]}`, exact: true })).toBeVisible();
        await expect(page.getByText('1–1 of 1')).toBeVisible();
        await page.screenshot({ path: screenshotPath(`dashboard-order-search-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the invoices list searched by order id');
        await page.getByLabel('Search').fill('');
        await expect(page).toHaveURL(/\/dashboard\/invoices$/);
      });

      await test.step('times are UTC and say so, whatever the browser\'s zone; the date filters count UTC days', async () => {
        expect(await page.evaluate(() => new Date().getTimezoneOffset()), 'the browser is 14 hours ahead of UTC').toBe(-14 * 60);
        const { created_at: createdAt, expired_at: expiredAt } = (await app.api(`/payment/get/${ids[20]}`, key)).json as { created_at: string; expired_at: string };
        await showFilters(page);
        await expect(table.getByRole('row').filter({ hasText: 'find-20' })).toContainText(utcText(createdAt));
        await expect(page.getByLabel('From (UTC day)')).toBeVisible();
        await expect(page.getByLabel('To (UTC day)')).toBeVisible();
        await table.getByRole('link', { name: `#${ids[20]}`, exact: true }).click();
        await expect(page.locator('dt:text-is("Created") + dd')).toHaveText(utcText(createdAt));
        await expect(page.locator('dt:text-is("Expires") + dd')).toHaveText(utcText(expiredAt));
        await page.screenshot({ path: screenshotPath(`dashboard-utc-times-${size.name}`), fullPage: true });
        await page.goBack();
      });

      await test.step('on a phone nothing is cut off: the page fits, the table scrolls in its box, addresses are short and copyable', async () => {
        await expect(table.getByRole('row')).toHaveCount(21);
        expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
        const row = table.getByRole('row').filter({ hasText: 'find-20' });
        const { address } = await app.prisma.invoice.findUniqueOrThrow({ where: { id: ids[20]! } });
        // Cut in the middle on screen, whole in the element and its title; one line, not a tall column.
        const cell = row.locator('code', { hasText: address });
        await expect(cell).toHaveAttribute('title', address);
        expect((await row.boundingBox())!.height).toBeLessThan(60);
        await row.getByRole('button', { name: `Copy address of invoice #${ids[20]}` }).click();
        await expect(row.getByRole('button', { name: `Copied address of invoice #${ids[20]}` })).toContainText('Copied');
        expect(await clipboard(page)).toBe(address);
        if (size.name === 'phone') {
          const box = table.locator('xpath=..');
          expect(await box.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
        }
        await page.screenshot({ path: screenshotPath(`dashboard-invoices-table-${size.name}`) });
      });

      await test.step('the transactions page fits a phone too, and its types are words', async () => {
        await page.getByRole('link', { name: 'Transactions' }).click();
        // The invoices page's Filters button, already open, answers until the new page is there: wait for it, or its filters stay shut.
        await expect(page.getByRole('heading', { name: 'Transactions', level: 1 })).toBeVisible();
        await showFilters(page);
        // Only the types a merchant's transactions can have, in words: not the pool's STAKE, UNSTAKE or a raw WITHDRAW (issue 38).
        await expect(page.getByRole('combobox', { name: 'Type' }).getByRole('option')).toHaveText(['Any', 'Payment', 'Transfer out', 'Refund', 'Top-up', 'Network fee', 'Energy lent', 'Energy returned']);
        expect(await duplicateIds(page)).toEqual([]);
        expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
        await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Payment' });
        await expect(page).toHaveURL(/[?&]type=PAYMENT(&|$)/);
        await page.reload();
        await expect(page.getByRole('combobox', { name: 'Type' })).toHaveValue('PAYMENT');
        await expectAccessibleHere(page, 'the transactions list filtered by type');
      });
    });

    test('money says its unit, its minimum, what a negative balance means, and estimate lines add up', async ({ page, stack }) => {
      const { app } = stack;
      const { merchant } = await test.step('sign in as a merchant with a wallet', () => signInSeededMerchant(page, app, WALLET, 'living'));

      await test.step('an empty chart says so; a negative balance says what happens next; top-up addresses copy', async () => {
        // A balance the service advanced fees against, as after USDT forwards (written as the worker's bookings leave it).
        await app.prisma.merchant.update({ where: { id: merchant.id }, data: { activationBalanceSun: -27_680_000n } });
        await page.getByRole('link', { name: 'Overview' }).click();
        await expect(page.getByText('No payments received in the last 30 days.')).toBeVisible();
        await expect(page.getByTestId('Activation balance amount')).toHaveText(/-27\.68\s*TRX/);
        const note = page.getByRole('note', { name: 'Activation balance below zero' });
        await expect(note).toContainText('the service advanced 27.68 TRX of network fees');
        await expect(note).toContainText('your payments keep being forwarded');
        await expect(note).toContainText('credited to this balance');
        await expect(page.getByRole('note', { name: 'Service-fee balance below zero' })).toHaveCount(0);
        expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
        await page.getByRole('button', { name: 'Copy activation balance top-up address' }).click();
        expect(await clipboard(page)).toBe(merchant.activationWalletAddress);
        await page.getByRole('button', { name: 'Copy service-fee balance top-up address' }).click();
        expect(await clipboard(page)).toBe(merchant.topupWalletAddress);
        await page.screenshot({ path: screenshotPath(`dashboard-overview-negative-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the overview with a negative balance and an empty chart');
      });

      await test.step('a too-small invoice is refused with its minimum in short; the minimum is accepted', async () => {
        await page.goto(`${app.baseUrl}/dashboard/invoices/new`);
        const form = page.getByRole('form', { name: 'New invoice' });
        await form.getByRole('checkbox', { name: 'TRX' }).uncheck();
        await form.getByLabel('Amount (USD)').fill('1');
        await form.getByRole('button', { name: 'Create invoice' }).click();
        const refusal = form.getByRole('alert');
        await expect(refusal).toHaveText(/^The minimum for USDT is \d+\.\d\d USD\.$/);
        await expect(form).not.toContainText('would be held');
        await page.screenshot({ path: screenshotPath(`dashboard-invoice-minimum-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'the new invoice form refusing an amount below the minimum');
        const minimum = /(\d+\.\d\d) USD/.exec((await refusal.textContent()) ?? '')![1]!;
        await form.getByLabel('Amount (USD)').fill(minimum);
        await form.getByRole('button', { name: 'Create invoice' }).click();
        const created = page.getByRole('status').filter({ hasText: 'Created invoice' });
        await expect(created).toContainText('USDT');
        await created.getByRole('link').click();
        await expect(page.locator('dt:text-is("Amount") + dd')).toHaveText(`${Number(minimum)} USD`);
        await expect(page.getByRole('button', { name: 'Copy invoice address' })).toBeVisible();
      });

      await test.step('every amount on an invoice\'s page has its unit, the service fee too', async () => {
        const fact = (name: string) => page.locator(`dt:text-is("${name}") + dd`);
        const amount = String.raw`\d+(\.\d+)?`;
        const inTokens = new RegExp(String.raw`^${amount} (TRX|USDT)((, | or )${amount} (TRX|USDT))*$`);
        const invoiceId = Number(/\/dashboard\/invoices\/(\d+)$/.exec(page.url())![1]);
        await expect(fact('Due')).toHaveText(inTokens);
        await expect(fact('Received')).toHaveText(inTokens);
        await expect(fact('Forwarded')).toHaveText(inTokens);
        await expect(fact('Service fee')).toHaveText('—');
        // A fee as the worker books it, in the token it was kept in.
        await app.prisma.invoice.update({ where: { id: invoiceId }, data: { costUnits: 250_000n, costCurrency: 'USDT' } });
        await page.reload();
        await expect(fact('Service fee')).toHaveText('0.25 USDT');
        // A fee on a row that never recorded its token (written by hand or an import; the worker
        // always writes both): still a unit, the invoice's only token, never a bare "0.25".
        await app.prisma.invoice.update({ where: { id: invoiceId }, data: { costCurrency: null } });
        await page.reload();
        await expect(fact('Service fee')).toHaveText('0.25 USDT');
        for (const name of ['Amount', 'Due', 'Received', 'Forwarded', 'Service fee']) await expect(fact(name)).toHaveText(/ (USD|TRX|USDT)$/);
        await page.screenshot({ path: screenshotPath(`dashboard-invoice-units-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'an invoice\'s page');
      });

      await test.step('the payout estimate: lines that add up to the top-up, the margin on its own line, no "activation 0"', async () => {
        await page.goto(`${app.baseUrl}/dashboard/payouts/new`);
        const form = page.getByRole('form', { name: 'New mass payout' });
        await form.getByLabel('Payout token').selectOption('TRX');
        // Two addresses that are not accounts yet: their activation is part of the network fee.
        await form.getByLabel(/^Targets/).fill(`${randomAddress()}, 1.5\n${randomAddress()}, 2`);
        await form.getByRole('button', { name: 'Estimate cost' }).click();
        const estimate = form.getByRole('definition').first();
        await expect(estimate).toBeVisible();
        const units = async (id: string) => tokenUnits((await page.getByTestId(`payout-estimate-${id}`).textContent()) ?? '');
        const lines = await Promise.all(['sent', 'service-fee', 'network-fee', 'margin'].map(units));
        expect(lines[0]).toBe(3_500_000n);
        expect(lines[3]).toBeGreaterThan(0n);
        expect(lines.reduce((a, b) => a + b, 0n)).toBe(await units('topup'));
        await expect(page.getByTestId('payout-estimate-activation')).toHaveCount(0);
        await expect(form).toContainText('includes activating 2 new accounts');
        await expect(form.getByText('Gas margin on the network fee', { exact: true })).toBeVisible();
        await expect(form).not.toContainText('Activation cost');
        for (const line of ['Sent to 2 targets', 'Service fee', 'Network fee (estimate)', 'Top-up to send']) await expect(form.getByText(line, { exact: true })).toBeVisible();
        expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: screenshotPath(`dashboard-payout-estimate-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'a TRX payout estimate');
      });

      await test.step('a USDT payout estimate: its lines, activating the payout\'s own address among them, add up to the top-up', async () => {
        const form = page.getByRole('form', { name: 'New mass payout' });
        await form.getByLabel('Payout token').selectOption('USDT');
        await form.getByLabel(/^Targets/).fill(`${randomAddress()}, 12.5\n${randomAddress()}, 7.25`);
        await form.getByRole('button', { name: 'Estimate cost' }).click();
        await expect(page.getByTestId('payout-estimate-topup')).toBeVisible();
        const units = async (id: string) => tokenUnits((await page.getByTestId(`payout-estimate-${id}`).textContent()) ?? '');
        const lines = await Promise.all(['sent', 'service-fee', 'network-fee', 'margin', 'activation'].map(units));
        expect(lines[0]).toBe(19_750_000n);
        expect(lines[2]).toBeGreaterThan(0n);
        expect(lines[4], 'the payout address is new: activating it is a line of its own').toBeGreaterThan(0n);
        expect(lines.reduce((a, b) => a + b, 0n)).toBe(await units('topup'));
        // Each line says its unit (the number's box, then the token beside it).
        for (const id of ['sent', 'service-fee', 'network-fee', 'margin', 'activation', 'topup']) await expect(page.getByTestId(`payout-estimate-${id}`).locator('xpath=..')).toHaveText(/^\d+(\.\d+)? USDT$/);
        expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: screenshotPath(`dashboard-payout-estimate-usdt-${size.name}`), fullPage: true });
        await expectAccessibleHere(page, 'a USDT payout estimate');
      });
    });
  });
}
