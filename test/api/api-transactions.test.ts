import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Prisma } from '@/lib/generated/prisma/client';
import { startApp, type TestApp } from '../helpers/app';

describe('GET /transaction/list and GET /transaction/{trn_hash}', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  let invoiceId: number;
  const aml = { id: 'chk1', status: 'SUCCESS', risk_score: 5, risk_level: 'low', exposure: {}, report_url: 'https://aml.example/r.pdf', cost: 0.5, completed: true, created_at: '2025-01-10T00:00:00.000000+00:00' };
  const list = async (query = '') => {
    const res = await app.api(`/transaction/list${query}`, key);
    assert.equal(res.status, 200, res.text);
    return res.json;
  };
  const hashes = (page: { results: { trn_hash: string }[] }) => page.results.map((r) => r.trn_hash);

  before(async () => {
    app = await startApp({ PUBLIC_BASE_URL: 'https://api.example.test' });
    const a = await app.createMerchant();
    key = a.key;
    ({ key: otherKey } = await app.createMerchant());
    invoiceId = (await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 10, currencies: ['TRX', 'USDT'] } })).json.id;
    const event = randomUUID();
    type Row = Pick<Prisma.TransactionCreateManyInput, 'type' | 'trnHash' | 'chainRef' | 'amountUnits'> & Partial<Prisma.TransactionCreateManyInput>;
    const row = (over: Row): Prisma.TransactionCreateManyInput => ({ merchantId: a.merchant.id, invoiceId, fromAddress: 'Tcustomer', toAddress: 'Tinvoice', currency: 'TRX' as const, ...over });
    await app.prisma.transaction.createMany({
      data: [
        row({ type: 'PAYMENT', trnHash: 'aa01', chainRef: 'aa01:trx', amountUnits: 40_000_000n, eventId: event, paymentState: 'SETTLED', amlCheck: aml, createdAt: new Date('2025-01-10T10:00:00Z') }),
        row({ type: 'TRANSFER', trnHash: 'bb02', chainRef: 'bb02:send', amountUnits: 39_600_000n, eventId: event, sendState: 'CONFIRMED', fromAddress: 'Tinvoice', toAddress: 'Tmerchant', createdAt: new Date('2025-01-11T10:00:00Z') }),
        row({ type: 'ACTIVATION', trnHash: 'cc03', chainRef: 'cc03:send', amountUnits: 7_000_000n, sendState: 'CONFIRMED', fromAddress: 'Tgas', createdAt: new Date('2025-01-12T10:00:00Z') }),
        row({ type: 'PAYMENT', trnHash: 'dd04', chainRef: 'dd04:0', amountUnits: 5_000_000n, currency: 'USDT', paymentState: 'SETTLED', createdAt: new Date('2025-01-12T23:59:59Z') }),
        row({ type: 'TRANSFER', trnHash: 'ee05', chainRef: 'ee05:send', amountUnits: 1n, sendState: 'FAILED', createdAt: new Date('2025-01-12T12:00:00Z') }),
        // The energy pool's lending and its taking back for the payment (lib/energy/pool.ts, reclaim.ts), as the worker writes
        // them: not merchant transactions, never in /v1/api (issue 34, docs/api.md); the dashboard shows them.
        row({ type: 'DELEGATE', trnHash: 'ff06', chainRef: 'ff06:send', amountUnits: 0n, eventId: event, sendState: 'CONFIRMED', fromAddress: 'Tgas', stakeSun: 2_000_000n, resource: 'ENERGY', energySource: 'POOL', createdAt: new Date('2025-01-11T09:00:00Z') }),
        row({ type: 'UNDELEGATE', trnHash: 'gg07', chainRef: 'gg07:send', amountUnits: 0n, eventId: event, sendState: 'CONFIRMED', fromAddress: 'Tgas', stakeSun: 2_000_000n, resource: 'ENERGY', energySource: 'POOL', createdAt: new Date('2025-01-11T11:00:00Z') }),
      ],
    });
  });
  after(() => app.stop());

  it('lists the merchant\'s transactions, newest first, in the paging envelope, without failed send attempts', async () => {
    const page = await list();
    assert.equal(page.count, 4);
    assert.deepEqual(hashes(page), ['dd04', 'cc03', 'bb02', 'aa01']);
    assert.equal(page.next, null);
    assert.deepEqual(page.results[3], {
      trn_hash: 'aa01', invoice: invoiceId, type: 'PAYMENT', from_address: 'Tcustomer', to_address: 'Tinvoice', amount: 40, currency: 'TRX',
      aml_check: aml, event_id: page.results[2].event_id, created_at: '2025-01-10T10:00:00.000000+00:00',
      // Added field (docs/api.md): null unless the worker holds the payment.
      held: null,
    });
    assert.equal((await app.api('/transaction/list', otherKey)).json.count, 0, 'other merchants see nothing');
  });

  it('filters by every parameter of spec 4.7', async () => {
    assert.deepEqual(hashes(await list('?type=TRANSFER')), ['bb02']);
    assert.deepEqual(hashes(await list(`?invoice_id=${invoiceId}&currency=USDT`)), ['dd04']);
    assert.deepEqual(hashes(await list('?from_address=Tgas')), ['cc03']);
    assert.deepEqual(hashes(await list('?to_address=Tmerchant')), ['bb02']);
    assert.deepEqual(hashes(await list('?trn_hash=aa01')), ['aa01']);
    assert.deepEqual(hashes(await list('?has_aml=true')), ['aa01']);
    assert.deepEqual(hashes(await list('?has_aml=false')), ['dd04', 'cc03', 'bb02']);
    assert.deepEqual(hashes(await list('?date_from=2025-01-11&date_to=2025-01-12')), ['dd04', 'cc03', 'bb02']);
    assert.deepEqual(hashes(await list('?date_from=2025_01_12')), ['dd04', 'cc03'], 'underscore dates as in the spec sample');
  });

  it('orders, searches and pages', async () => {
    assert.deepEqual(hashes(await list('?ordering=amount')), ['dd04', 'cc03', 'bb02', 'aa01']);
    assert.deepEqual(hashes(await list('?ordering=-amount')), ['aa01', 'bb02', 'cc03', 'dd04']);
    assert.deepEqual(hashes(await list('?ordering=created_at')), ['aa01', 'bb02', 'cc03', 'dd04']);
    assert.equal((await list('?ordering=status')).count, 4);
    assert.deepEqual(hashes(await list('?search=activation')), ['cc03']);
    assert.deepEqual(hashes(await list('?search=usdt')), ['dd04']);
    assert.deepEqual(hashes(await list('?search=tmerch')), ['bb02']);
    const first = await list('?limit=2');
    assert.deepEqual(hashes(first), ['dd04', 'cc03']);
    assert.equal(first.next, 'https://api.example.test/v1/api/transaction/list?limit=2&offset=2');
    assert.equal((await list('?limit=2&offset=2')).previous, 'https://api.example.test/v1/api/transaction/list?limit=2');
  });

  it('answers only the spec\'s transaction types: the energy pool\'s operations are not listed, not found by hash and no filter value', async () => {
    const all = await list('?limit=300');
    assert.equal(all.count, 4);
    assert.deepEqual(hashes(all), ['dd04', 'cc03', 'bb02', 'aa01']);
    assert.ok(all.results.every((t: { type: string }) => ['PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION'].includes(t.type)));
    assert.equal((await list(`?invoice_id=${invoiceId}`)).count, 4);
    assert.equal((await list('?search=delegate')).count, 0);
    assert.equal((await list('?from_address=Tgas')).count, 1);
    const unknown = await app.api('/transaction/nope', key);
    for (const hash of ['ff06', 'gg07']) {
      const res = await app.api(`/transaction/${hash}`, key);
      assert.deepEqual([res.status, res.json], [unknown.status, unknown.json], `${hash} answers as an unknown hash`);
    }
    const refused = await app.api('/transaction/list?type=REFUND', key);
    for (const type of ['DELEGATE', 'undelegate', 'STAKE', 'UNSTAKE', 'WITHDRAW']) {
      const res = await app.api(`/transaction/list?type=${type}`, key);
      assert.deepEqual([res.status, res.json], [refused.status, refused.json], `type=${type} is refused as type=REFUND is`);
    }
  });

  for (const [query, field] of [['?type=REFUND', 'type'], ['?type=DELEGATE', 'type'], ['?has_aml=maybe', 'has_aml'], ['?currency=BTC', 'currency'], ['?invoice_id=x', 'invoice_id'], ['?date_to=2025-13-01', 'date_to'], ['?ordering=fee', 'ordering'], ['?limit=-1', 'limit']] as const) {
    it(`refuses ${query} with a 400 naming ${field}`, async () => {
      const res = await app.api(`/transaction/list${query}`, key);
      assert.equal(res.status, 400, res.text);
      assert.ok(res.json.detail.startsWith(`${field}: `), res.json.detail);
    });
  }

  it('gets one transaction by hash; unknown, failed and foreign hashes are 404 Address not found.', async () => {
    const res = await app.api('/transaction/aa01', key);
    assert.equal(res.status, 200);
    assert.equal(res.json.trn_hash, 'aa01');
    assert.deepEqual(res.json.aml_check, aml);
    for (const [hash, k] of [['nope', key], ['ee05', key], ['aa01', otherKey]] as const) {
      const miss = await app.api(`/transaction/${hash}`, k);
      assert.equal(miss.status, 404, hash);
      assert.deepEqual(miss.json, { detail: 'Address not found.' });
    }
  });

  it('requires authentication', async () => {
    assert.equal((await app.api('/transaction/list', null)).status, 403);
    assert.equal((await app.api('/transaction/aa01', 'bad')).status, 403);
  });
});
