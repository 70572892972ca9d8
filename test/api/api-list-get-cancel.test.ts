import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../helpers/app';

describe('GET /payment/list, GET /payment/get/{id}, DELETE /payment/{id}/cancel', () => {
  let app: TestApp;
  let key: string;
  let otherKey: string;
  const ids = {} as Record<'trx' | 'usdt' | 'both' | 'multi', number>;
  const list = async (query = '') => {
    const res = await app.api(`/payment/list${query}`, key);
    assert.equal(res.status, 200, res.text);
    return res.json;
  };
  const idsOf = (page: { results: { id: number }[] }) => page.results.map((r) => r.id);

  before(async () => {
    app = await startApp({ PUBLIC_BASE_URL: 'https://api.example.test' });
    ({ key } = await app.createMerchant());
    ({ key: otherKey } = await app.createMerchant());
    const make = async (name: keyof typeof ids, body: object, createdAt: string, status?: string) => {
      const res = await app.api('/payment/create', key, { method: 'POST', body });
      assert.equal(res.status, 200, res.text);
      ids[name] = res.json.id;
      await app.prisma.invoice.update({ where: { id: res.json.id }, data: { createdAt: new Date(createdAt), ...(status && { status: status as never }) } });
    };
    await make('trx', { type: 'SINGLE', amount: 30, currencies: ['TRX'], description: 'Blue teapot' }, '2025-01-10T00:00:00Z');
    await make('usdt', { type: 'SINGLE', amount: 10, currencies: ['USDT'], description: 'Green cup' }, '2025-01-11T23:59:59.999Z', 'COMPLETED');
    await make('both', { type: 'SINGLE', amount: 20, currencies: ['TRX', 'USDT'] }, '2025-01-12T00:00:00Z', 'TIMEOUT');
    await make('multi', { type: 'MULTIPLE', currencies: ['USDT'] }, '2025-01-13T12:00:00Z');
    await app.api('/payment/create', otherKey, { method: 'POST', body: { type: 'SINGLE', amount: 99, currencies: ['TRX'] } });
  });
  after(() => app.stop());

  it('lists only the caller\'s invoices, newest first, in the paging envelope', async () => {
    const page = await list();
    assert.equal(page.count, 4);
    assert.equal(page.next, null);
    assert.equal(page.previous, null);
    assert.deepEqual(idsOf(page), [ids.multi, ids.both, ids.usdt, ids.trx]);
  });

  it('filters by type, status (both spellings of CANCELED) and currency', async () => {
    assert.deepEqual(idsOf(await list('?type=MULTIPLE')), [ids.multi]);
    assert.deepEqual(idsOf(await list('?type=single')), [ids.both, ids.usdt, ids.trx]);
    assert.deepEqual(idsOf(await list('?type=MULTIPLE_TRANSFER')), []);
    assert.deepEqual(idsOf(await list('?status=COMPLETED')), [ids.usdt]);
    assert.deepEqual(idsOf(await list('?currency=TRX')), [ids.both, ids.trx]);
    assert.deepEqual(idsOf(await list('?currency=USDT')), [ids.multi, ids.both, ids.usdt]);
    assert.deepEqual(idsOf(await list('?currency=TRX,USDT')), [ids.both]);
    const cancel = await app.api(`/payment/${ids.trx}/cancel`, key, { method: 'DELETE' });
    assert.equal(cancel.status, 200);
    assert.deepEqual(idsOf(await list('?status=CANCELLED')), [ids.trx]);
    assert.deepEqual(idsOf(await list('?status=CANCELED')), [ids.trx]);
  });

  it('filters by inclusive UTC dates', async () => {
    assert.deepEqual(idsOf(await list('?date_from=2025-01-11&date_to=2025-01-12')), [ids.both, ids.usdt]);
    assert.deepEqual(idsOf(await list('?date_to=2025-01-10')), [ids.trx]);
    assert.deepEqual(idsOf(await list('?date_from=2025-01-13')), [ids.multi]);
  });

  it('orders by created_at, amount and status, ascending and descending', async () => {
    assert.deepEqual(idsOf(await list('?ordering=created_at')), [ids.trx, ids.usdt, ids.both, ids.multi]);
    assert.deepEqual(idsOf(await list('?ordering=amount')), [ids.multi, ids.usdt, ids.both, ids.trx]);
    assert.deepEqual(idsOf(await list('?ordering=-amount')), [ids.trx, ids.both, ids.usdt, ids.multi]);
    const byStatus = (await list('?ordering=status')).results.map((r: { status: string }) => r.status);
    assert.deepEqual(byStatus, [...byStatus].sort((a, b) => ['ACTIVE', 'COMPLETED', 'CANCELED', 'TIMEOUT', 'ERROR', 'AML_FAILED', 'OVERPAID', 'UNDERPAID'].indexOf(a) - ['ACTIVE', 'COMPLETED', 'CANCELED', 'TIMEOUT', 'ERROR', 'AML_FAILED', 'OVERPAID', 'UNDERPAID'].indexOf(b)));
    const desc = (await list('?ordering=-status')).results.map((r: { status: string }) => r.status);
    assert.deepEqual(desc, [...byStatus].reverse());
  });

  it('searches id, address, description, status and currencies', async () => {
    const trx = (await app.api(`/payment/get/${ids.trx}`, key)).json;
    // Search is substring search, so an id also matches addresses that contain its digits.
    assert.ok(idsOf(await list(`?search=${ids.usdt}`)).includes(ids.usdt));
    assert.deepEqual(idsOf(await list(`?search=${trx.address.slice(3, 20).toLowerCase()}`)), [ids.trx]);
    assert.deepEqual(idsOf(await list('?search=teapot')), [ids.trx]);
    assert.deepEqual(idsOf(await list('?search=timeout')), [ids.both]);
    await app.prisma.invoice.update({ where: { id: ids.usdt }, data: { status: 'CANCELED' } });
    assert.deepEqual(idsOf(await list('?search=cancelled')), idsOf(await list('?search=canceled')));
    assert.ok(idsOf(await list('?search=cancelled')).includes(ids.usdt));
    await app.prisma.invoice.update({ where: { id: ids.usdt }, data: { status: 'COMPLETED' } });
    assert.deepEqual(idsOf(await list('?search=usdt')), [ids.multi, ids.both, ids.usdt]);
  });

  it('searches order ids too, by their start, case-insensitively (issue 26)', async () => {
    const made: number[] = [];
    for (const orderId of ['UX-1', 'UX-12', 'ab-ux-1']) {
      const res = await app.api('/payment/create', otherKey, { method: 'POST', body: { type: 'SINGLE', amount: 5, currencies: ['TRX'], order_id: orderId } });
      assert.equal(res.status, 200, res.text);
      made.push(res.json.id);
    }
    const search = async (term: string) => {
      const res = await app.api(`/payment/list?search=${encodeURIComponent(term)}`, otherKey);
      assert.equal(res.status, 200, res.text);
      return res.json as { count: number; results: { id: number; order_id: string }[] };
    };
    const all = await search('ux-1');
    assert.deepEqual(all.results.map((r) => r.order_id), ['UX-12', 'UX-1']);
    assert.equal(all.count, 2);
    // LIKE's wildcards are characters here too.
    assert.equal((await search('UX_1')).count, 0);
    const one = await search('ux-12');
    assert.deepEqual(one.results.map((r) => r.id), [made[1]]);
    assert.equal(one.count, 1);
    // A second search of the same term is counted from the kept count (lib/invoices/searchCount.ts).
    assert.equal((await search('ux-12')).count, 1);
    // The order ids are the other merchant's: the caller's search finds none of them.
    assert.equal((await list('?search=UX-1')).count, 0);
  });

  it('pages with limit/offset and absolute next/previous links that keep the filters', async () => {
    const first = await list('?currency=USDT&limit=1');
    assert.equal(first.count, 3);
    assert.deepEqual(idsOf(first), [ids.multi]);
    assert.equal(first.previous, null);
    assert.equal(first.next, 'https://api.example.test/v1/api/payment/list?currency=USDT&limit=1&offset=1');
    const second = await list('?currency=USDT&limit=1&offset=1');
    assert.deepEqual(idsOf(second), [ids.both]);
    assert.equal(second.previous, 'https://api.example.test/v1/api/payment/list?currency=USDT&limit=1');
    assert.equal(second.next, 'https://api.example.test/v1/api/payment/list?currency=USDT&limit=1&offset=2');
    const last = await list('?currency=USDT&limit=1&offset=2');
    assert.equal(last.next, null);
    assert.equal(last.previous, 'https://api.example.test/v1/api/payment/list?currency=USDT&limit=1&offset=1');
  });

  it('defaults to 10 per page and clamps limit to 300', async () => {
    const { merchant, key: bulkKey } = await app.createMerchant();
    await app.prisma.invoice.createMany({
      data: Array.from({ length: 305 }, (_, i) => ({
        merchantId: merchant.id, type: 'SINGLE' as const, amountUsd: '1', currencies: ['TRX' as const],
        address: `Tbulk${merchant.id}x${i}`, addressIndex: i, privateKeyEnc: 'v1.x.x.x.x', expiredAt: new Date(Date.now() + 3_600_000),
      })),
    });
    const dflt = (await app.api('/payment/list', bulkKey)).json;
    assert.equal(dflt.count, 305);
    assert.equal(dflt.results.length, 10);
    assert.match(dflt.next, /limit=10&offset=10$/);
    const big = (await app.api('/payment/list?limit=1000', bulkKey)).json;
    assert.equal(big.results.length, 300);
    assert.match(big.next, /limit=300&offset=300$/);
  });

  for (const [query, field] of [
    ['?limit=0', 'limit'], ['?limit=abc', 'limit'], ['?offset=-1', 'offset'], ['?type=WEEKLY', 'type'], ['?status=PAID', 'status'],
    ['?currency=BTC', 'currency[0]'], ['?date_from=2025-02-30', 'date_from'], ['?date_to=yesterday', 'date_to'], ['?ordering=-email', 'ordering'],
    // Values PostgreSQL itself would refuse: a 400 naming the parameter, never a 500.
    ['?date_from=0000-01-01', 'date_from'], ['?offset=100000000000000000000', 'offset'], ['?search=a%00b', 'search'],
  ] as const) {
    it(`refuses ${query} with a 400 naming ${field}`, async () => {
      const res = await app.api(`/payment/list${query}`, key);
      assert.equal(res.status, 400, res.text);
      assert.ok(res.json.detail.startsWith(`${field}: `), res.json.detail);
    });
  }

  it('gets one invoice; unknown, malformed and other merchants\' ids are 404 with the spec text', async () => {
    const own = await app.api(`/payment/get/${ids.usdt}`, key);
    assert.equal(own.status, 200);
    assert.equal(own.json.id, ids.usdt);
    assert.equal(own.json.status, 'COMPLETED');
    for (const path of [`/payment/get/${ids.usdt}`, '/payment/get/999999', '/payment/get/abc']) {
      const res = await app.api(path, path.includes('999999') || path.includes('abc') ? key : otherKey);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.json, { detail: 'No Invoice matches the given query.' });
    }
  });

  it('cancels an ACTIVE invoice once; the response is the invoice with status CANCELED', async () => {
    const res = await app.api(`/payment/${ids.multi}/cancel`, key, { method: 'DELETE' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.id, ids.multi);
    assert.equal(res.json.status, 'CANCELED');
    assert.equal((await app.api(`/payment/get/${ids.multi}`, key)).json.status, 'CANCELED');
    const again = await app.api(`/payment/${ids.multi}/cancel`, key, { method: 'DELETE' });
    assert.equal(again.status, 400);
    assert.deepEqual(again.json, { detail: 'Invoice cannot be canceled' });
  });

  for (const status of ['COMPLETED', 'TIMEOUT', 'ERROR', 'OVERPAID', 'UNDERPAID', 'AML_FAILED']) {
    it(`refuses to cancel a ${status} invoice and leaves it unchanged`, async () => {
      const created = (await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 1, currencies: ['TRX'] } })).json;
      await app.prisma.invoice.update({ where: { id: created.id }, data: { status: status as never } });
      const res = await app.api(`/payment/${created.id}/cancel`, key, { method: 'DELETE' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.json, { detail: 'Invoice cannot be canceled' });
      assert.equal((await app.api(`/payment/get/${created.id}`, key)).json.status, status);
    });
  }

  it('never lets a merchant cancel another merchant\'s invoice (404, not 403)', async () => {
    const created = (await app.api('/payment/create', key, { method: 'POST', body: { type: 'SINGLE', amount: 1, currencies: ['TRX'] } })).json;
    const res = await app.api(`/payment/${created.id}/cancel`, otherKey, { method: 'DELETE' });
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, { detail: 'No Invoice matches the given query.' });
    assert.equal((await app.api(`/payment/get/${created.id}`, key)).json.status, 'ACTIVE');
    assert.equal((await app.api('/payment/99999999/cancel', key, { method: 'DELETE' })).status, 404);
  });
});
