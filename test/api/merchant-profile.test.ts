import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { registerTestMerchant } from '../helpers/accounts';
import { linkKeyWith } from '@/lib/invoices/linkKey';
import { MAX_STORE_NAME } from '@/lib/merchants/limits';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { startApp, type TestApp } from '../helpers/app';
import { httpRequest } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

// Issue 26: the merchant's profile (store name, support e-mail or page, logo), set in the
// dashboard's settings and shown on the payment page where it tells the customer to contact the merchant.

const PASSWORD = 'correct horse battery';
const WALLET = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';

describe('merchant profile on the payment page', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp();
  });
  after(() => app.stop());

  async function signedIn(): Promise<{ browser: DashboardSession; id: number; key: string; email: string }> {
    const email = `p-${randomBytes(5).toString('hex')}@example.com`;
    const merchant = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    // Invoices need a wallet to forward to.
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: WALLET } });
    const browser = new DashboardSession(app.baseUrl);
    assert.equal(await browser.signIn(email, PASSWORD), null);
    return { browser, id: merchant.id, key: await issueApiKey(app.prisma, merchant.id, 'test'), email };
  }

  /** An invoice the worker has closed as expired (TIMEOUT): its page tells the customer to ask the merchant. */
  async function expiredInvoice(key: string): Promise<number> {
    const res = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX'] } });
    assert.equal(res.status, 200, res.text);
    await app.prisma.invoice.update({ where: { id: res.json.id as number }, data: { status: 'TIMEOUT', expiredAt: new Date(Date.now() - 60_000) } });
    return res.json.id as number;
  }

  it('validates the profile, naming the offending field', async () => {
    const { browser } = await signedIn();
    const bad: [Record<string, unknown>, string, RegExp][] = [
      [{ store_name: 'x'.repeat(MAX_STORE_NAME + 1) }, 'store_name', /no more than 80/],
      [{ store_name: 'Shop\u202Eevil' }, 'store_name', /text-direction/],
      [{ store_name: 'Shop\nTwo lines' }, 'store_name', /control/],
      [{ store_name: 42 }, 'store_name', /text/],
      [{ support_email: 'not an e-mail' }, 'support_email', /valid e-mail/],
      [{ support_url: 'javascript:alert(1)' }, 'support_url', /http/],
      [{ support_url: 'https://user:pw@shop.example/help' }, 'support_url', /credentials/],
      [{ logo_url: 'http://shop.example/logo.png' }, 'logo_url', /https:\/\//],
      [{ logo_url: 'data:image/png;base64,AAAA' }, 'logo_url', /http/],
      [{ logo_url: 'https://192.168.1.1/logo.png' }, 'logo_url', /public host/],
      [{ logo_url: 'https://localhost/logo.png' }, 'logo_url', /public host/],
      [{ logo_url: 'https://[::1]/logo.png' }, 'logo_url', /public host/],
    ];
    for (const [body, field, message] of bad) {
      const res = await browser.api('/settings', 'PATCH', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.json.errors[field]?.[0] ?? '', message, `${JSON.stringify(body)} -> ${res.text}`);
    }
    const ok = await browser.api('/settings', 'PATCH', { store_name: '  Mug Shop  ', support_email: ' help@mug.example ', support_url: 'https://mug.example/help', logo_url: 'https://cdn.mug.example/logo.png' });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      { store_name: ok.json.store_name, support_email: ok.json.support_email, support_url: ok.json.support_url, logo_url: ok.json.logo_url },
      { store_name: 'Mug Shop', support_email: 'help@mug.example', support_url: 'https://mug.example/help', logo_url: 'https://cdn.mug.example/logo.png' },
    );
    // Saving the profile leaves the other settings alone, and emptying a field clears it.
    const cleared = await browser.api('/settings', 'PATCH', { logo_url: '', support_url: '' });
    assert.equal(cleared.json.logo_url, null);
    assert.equal(cleared.json.support_url, null);
    assert.equal(cleared.json.store_name, 'Mug Shop');
    assert.equal((await browser.api('/settings')).json.support_email, 'help@mug.example');
  });

  it('shows the store and its contact on the page and in /status with the link key, never without it', async () => {
    const { browser, key, email } = await signedIn();
    assert.equal((await browser.api('/settings', 'PATCH', { store_name: 'Mug Shop', support_email: 'help@mug.example', support_url: 'https://mug.example/help' })).status, 200);
    const id = await expiredInvoice(key);
    const k = linkKeyWith(app.env.MASTER_KEY!, id);

    const status = await httpRequest(`${app.baseUrl}/payment/${id}/status?k=${k}`);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.json.phase, 'expired');
    assert.deepEqual(status.json.merchant, { store_name: 'Mug Shop', support_email: 'help@mug.example', support_url: 'https://mug.example/help', logo_url: null });
    assert.ok(!status.text.includes(email), "the merchant's own e-mail is never shown");

    const page = await httpRequest(`${app.baseUrl}/payment/${id}?k=${k}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Mug Shop/);
    assert.match(page.text, /href="mailto:help@mug\.example"/);
    assert.match(page.text, /href="https:\/\/mug\.example\/help"/);
    assert.match(page.text, /<title>Payment #\d+ · Mug Shop<\/title>/);
    assert.ok(!page.text.includes(email));
    const spanish = await httpRequest(`${app.baseUrl}/payment/${id}?k=${k}`, { headers: { 'accept-language': 'es-AR,es;q=0.9' } });
    assert.match(spanish.text, /Contacta con Mug Shop/);
    assert.match(spanish.text, /Página de soporte/);

    // A guessed id (no link key) says nothing about whose invoice it is.
    const guessed = await httpRequest(`${app.baseUrl}/payment/${id}/status`);
    assert.equal(guessed.json.merchant, null);
    const guessedPage = await httpRequest(`${app.baseUrl}/payment/${id}`);
    assert.equal(guessedPage.status, 200);
    assert.ok(!guessedPage.text.includes('Mug Shop') && !guessedPage.text.includes('help@mug.example'), 'no profile in the limited view');
  });

  it('keeps the current wording when the merchant set no profile', async () => {
    const { key } = await signedIn();
    const id = await expiredInvoice(key);
    const k = linkKeyWith(app.env.MASTER_KEY!, id);
    assert.equal((await httpRequest(`${app.baseUrl}/payment/${id}/status?k=${k}`)).json.merchant, null);
    const page = await httpRequest(`${app.baseUrl}/payment/${id}?k=${k}`);
    assert.match(page.text, /ask the merchant for a new invoice/);
    assert.ok(!page.text.includes('data-testid="merchant-contact"'));
    assert.match(page.text, /<title>Payment #\d+<\/title>/);
  });
});
