import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { deriveAccount } from '@/lib/chain/keys';
import { freePort, startApp, TEST_MNEMONIC, type TestApp } from '../helpers/app';

describe('GET /merchant and GET /rates', () => {
  let app: TestApp;

  before(async () => {
    app = await startApp({ TOPUP_FEE_PERCENT: '1.5', RATES_FIXED_TRX_USD: '0.2473' });
  });
  after(() => app?.stop());

  it('returns the merchant account with balances in TRX and its derived wallets', async () => {
    const { merchant, key } = await app.createMerchant();
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { balanceSun: 12_345_678n, activationBalanceSun: 1_000_001n, amlCheck: true, amlRiskLimit: '55.5' } });
    const res = await app.api('/merchant', key);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, {
      email: merchant.email,
      balance: 12.345678,
      target_wallet_address: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd',
      topup_wallet_address: deriveAccount(TEST_MNEMONIC, merchant.id, 'topup').address,
      activation_wallet_address: deriveAccount(TEST_MNEMONIC, merchant.id, 'activation').address,
      activation_balance: 1.000001,
      aml_check: true,
      aml_risk_limit: 55.5,
    });
  });

  it('returns the rate and top-up fee for TRX and USDT, any letter case', async () => {
    const { key } = await app.createMerchant();
    assert.deepEqual((await app.api('/rates?currency=TRX', key)).json, { currency: 'TRX', rate: 0.2473, fee: 1.5 });
    assert.deepEqual((await app.api('/rates?currency=usdt', key)).json, { currency: 'USDT', rate: 1, fee: 1.5 });
  });

  it('answers 404 Currency not found for an unknown token and 400 for a missing one', async () => {
    const { key } = await app.createMerchant();
    const unknown = await app.api('/rates?currency=BTC', key);
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json, { detail: 'Currency not found' });
    const missing = await app.api('/rates', key);
    assert.equal(missing.status, 400);
    assert.match(missing.json.detail, /^currency: /);
  });
});

describe('HTTP rate provider', () => {
  let app: TestApp;
  let provider: Server;
  let quote: { trx: number; updated: number; fail: boolean };

  before(async () => {
    quote = { trx: 0.3125, updated: Math.floor(Date.now() / 1000), fail: false };
    const port = await freePort();
    provider = createServer((_req, res) => {
      if (quote.fail) return res.writeHead(502).end('bad gateway');
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ tron: { usd: quote.trx, last_updated_at: quote.updated }, tether: { usd: 1.0002, last_updated_at: quote.updated } }),
      );
    });
    await new Promise<void>((r) => provider.listen(port, '127.0.0.1', r));
    app = await startApp({ RATES_PROVIDER: 'http', RATES_HTTP_URL: `http://127.0.0.1:${port}/simple/price`, RATES_CACHE_SECONDS: '1', RATES_MAX_AGE_SECONDS: '120' });
  });
  // The provider closed first and the app only if it started: a startApp that threw (a stale bundle)
  // left the provider listening, and the file's process waited on it until the lane's 25-minute limit.
  after(async () => {
    provider?.close();
    await app?.stop();
  });

  it('prices invoices from the provider', async () => {
    const { key } = await app.createMerchant();
    assert.deepEqual((await app.api('/rates?currency=TRX', key)).json, { currency: 'TRX', rate: 0.3125, fee: 1 });
    // 10 USD: above the USDT minimum (an amount whose forward costs what it delivers is refused, docs/api.md).
    const inv = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX', 'USDT'] } });
    assert.equal(inv.status, 200, inv.text);
    // 10 / 0.3125 = 32 TRX; 10 / 1.0002 = 9.998000399.. rounded up to 9.998001 USDT.
    assert.deepEqual(inv.json.currencies_amounts, { TRX: 32, USDT: 9.998001 });
  });

  it('refuses to quote or price on a stale rate with a clear 503', async () => {
    const { key } = await app.createMerchant();
    quote.updated = Math.floor(Date.now() / 1000) - 600;
    await new Promise((r) => setTimeout(r, 1100));
    const rate = await app.api('/rates?currency=TRX', key);
    assert.equal(rate.status, 503);
    assert.match(rate.json.detail, /^Exchange rate for TRX is unavailable/);
    const inv = await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 5, currencies: ['TRX'] } });
    assert.equal(inv.status, 503);
    assert.equal(await app.prisma.invoice.count({ where: { currencies: { equals: ['TRX'] } } }), 0, 'no invoice priced on a stale rate');
  });

  it('keeps serving a fresh cached quote while the provider is down', async () => {
    const { key } = await app.createMerchant();
    quote.updated = Math.floor(Date.now() / 1000);
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await app.api('/rates?currency=TRX', key)).status, 200);
    quote.fail = true;
    await new Promise((r) => setTimeout(r, 1100));
    const res = await app.api('/rates?currency=TRX', key);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.rate, 0.3125);
  });
});
