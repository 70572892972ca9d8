import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { registerTestMerchant } from '../helpers/accounts';
import { csvCell, csvLine } from '@/lib/export/csv';
import { execute, sql } from '@/lib/db/sql';
import type { Prisma } from '@/lib/generated/prisma/client';
import { listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { invoiceBatches, listInvoices } from '@/lib/invoices/list';
import { issueApiKey } from '@/lib/auth/apiKeys';
import { dashboardTransactionsQuerySchema } from '@/lib/transactions/schemas';
import { listTransactions, transactionBatches } from '@/lib/transactions/service';
import { startApp, type TestApp } from '../helpers/app';
import { httpRequest } from '../helpers/http';
import { DashboardSession } from '../helpers/session';

const PASSWORD = 'correct horse battery';

/** RFC 4180 parsing, enough to read back what the export wrote. */
function parseCsv(text: string): string[][] {
  assert.ok(text.startsWith('\uFEFF'), 'UTF-8 BOM first');
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  assert.equal(cell + row.join(''), '', 'the last line ends with CRLF');
  return rows;
}

describe('CSV exports of the dashboard lists', () => {
  let app: TestApp;
  let session: DashboardSession;
  let merchantId: number;
  let key: string;
  const ids: Record<string, number> = {};

  before(async () => {
    app = await startApp();
    const email = `x-${randomBytes(5).toString('hex')}@example.com`;
    const merchant = await registerTestMerchant(app.prisma, { email, password: PASSWORD });
    merchantId = merchant.id;
    await app.prisma.merchant.update({ where: { id: merchant.id }, data: { targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' } });
    key = await issueApiKey(app.prisma, merchant.id, 'exports');
    const create = async (name: string, body: object) => {
      const res = await app.api('/payment/create', key, { method: 'POST', body });
      assert.equal(res.status, 200, res.text);
      ids[name] = res.json.id;
    };
    // Customer-controlled text that a spreadsheet would run as a formula, or that needs quoting.
    await create('formula', { type: 'SINGLE', amount: 5, currencies: ['TRX'], order_id: '=HYPERLINK("http://evil.example","click")', description: '+1+2' });
    await create('quoted', { type: 'SINGLE', amount: 7.5, currencies: ['USDT'], order_id: '@SUM(A1:A9)', description: 'line one\nline "two", and more' });
    await create('static', { type: 'MULTIPLE', currencies: ['TRX', 'USDT'], description: '-2-3' });
    for (let i = 0; i < 17; i++) await create(`plain${i}`, { type: 'SINGLE', amount: 5 + (i % 5), currencies: i % 2 ? ['TRX'] : ['TRX', 'USDT'], order_id: `order-${i}` });
    await app.api(`/payment/${ids.plain3}/cancel`, key, { method: 'DELETE' });

    // Transactions are what the worker records from the chain (test/chain/worker.test.ts); here they are fixtures to export.
    const event = randomUUID();
    type Row = Pick<Prisma.TransactionCreateManyInput, 'type' | 'trnHash' | 'chainRef' | 'amountUnits'> & Partial<Prisma.TransactionCreateManyInput>;
    const row = (over: Row): Prisma.TransactionCreateManyInput => ({ merchantId, invoiceId: ids.formula!, fromAddress: 'Tcustomer', toAddress: 'Tinvoice', currency: 'TRX' as const, ...over });
    await app.prisma.transaction.createMany({
      data: [
        row({ type: 'PAYMENT', trnHash: 'aa01', chainRef: 'aa01:trx', amountUnits: 20_000_000n, eventId: event, paymentState: 'SETTLED', amlCheck: { id: 'c1', status: 'SUCCESS', risk_score: 12.5, risk_level: 'low', exposure: {}, report_url: '', cost: 0.5, completed: true, created_at: '2025-01-10T00:00:00.000000+00:00' }, createdAt: new Date('2025-01-10T10:00:00Z') }),
        row({ type: 'TRANSFER', trnHash: 'bb02', chainRef: 'bb02:send', amountUnits: 19_800_000n, eventId: event, sendState: 'CONFIRMED', fromAddress: 'Tinvoice', toAddress: '=cmd|"/c calc"!A1', createdAt: new Date('2025-01-11T10:00:00Z') }),
        row({ type: 'PAYMENT', trnHash: 'cc03', chainRef: 'cc03:0', amountUnits: 5_000_000n, currency: 'USDT', paymentState: 'SETTLED', invoiceId: ids.quoted!, createdAt: new Date('2025-01-12T10:00:00Z') }),
        row({ type: 'TRANSFER', trnHash: 'dd04', chainRef: 'dd04:send', amountUnits: 1n, sendState: 'FAILED', createdAt: new Date('2025-01-12T12:00:00Z') }),
        ...Array.from({ length: 12 }, (_, i) => row({ type: 'ACTIVATION', trnHash: `ee${i}`, chainRef: `ee${i}:send`, amountUnits: BigInt(1 + (i % 4)) * 1_000_000n, sendState: i % 3 ? 'CONFIRMED' : 'BROADCAST', paymentState: null, createdAt: new Date(Date.UTC(2025, 1, 1 + (i % 3))) })),
      ],
    });
    session = new DashboardSession(app.baseUrl);
    assert.equal(await session.signIn(email, PASSWORD), null);
  });
  after(() => app?.stop());

  it('escapes cells for spreadsheets: formulas neutralised, quotes and line breaks quoted', () => {
    assert.equal(csvCell('=1+2'), "'=1+2");
    assert.equal(csvCell('+1'), "'+1");
    assert.equal(csvCell('-1'), "'-1");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell('\t=1'), "'\t=1");
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell(-5), '-5', 'numbers are numbers');
    assert.equal(csvCell(null), '');
    assert.equal(csvLine(['a', 1, true, undefined]), 'a,1,true,\r\n');
  });

  it('streams every invoice the on-screen filters match, not one page, as an attachment', async () => {
    const res = await session.request('/dashboard/api/invoices/export?limit=2&offset=5');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="invoices-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.equal(res.headers['transfer-encoding'], 'chunked', 'streamed, not buffered with a length');
    const [header, ...rows] = parseCsv(res.text);
    assert.deepEqual(header, ['id', 'created_at', 'status', 'type', 'amount_usd', 'currencies', 'due_trx', 'due_usdt', 'received_trx', 'received_usdt', 'forwarded_trx', 'forwarded_usdt', 'cost', 'order_id', 'description', 'address', 'client_commission', 'expired_at', 'payment_url']);
    assert.equal(rows.length, 20, 'limit and offset do not apply to an export');
    const listed = (await app.api('/payment/list?limit=300', key)).json.results as { id: number }[];
    assert.deepEqual(rows.map((r) => Number(r[0])), listed.map((i) => i.id), 'the list\'s order (newest first)');

    const byId = new Map(rows.map((r) => [Number(r[0]), Object.fromEntries(header!.map((h, i) => [h, r[i]]))]));
    const formula = byId.get(ids.formula!)!;
    assert.equal(formula.order_id, '\'=HYPERLINK("http://evil.example","click")');
    assert.equal(formula.description, "'+1+2");
    assert.equal(formula.amount_usd, '5');
    assert.equal(formula.due_trx, '20');
    assert.equal(formula.due_usdt, '');
    assert.equal(formula.status, 'ACTIVE');
    const quoted = byId.get(ids.quoted!)!;
    assert.equal(quoted.order_id, "'@SUM(A1:A9)");
    assert.equal(quoted.description, 'line one\nline "two", and more');
    assert.equal(byId.get(ids.static!)!.description, "'-2-3");
    assert.equal(byId.get(ids.static!)!.currencies, 'TRX USDT');
    assert.equal(byId.get(ids.plain3!)!.status, 'CANCELED');
  });

  it('applies the list\'s filters and ordering', async () => {
    const csvIds = async (query: string) => {
      const res = await session.request(`/dashboard/api/invoices/export${query}`);
      assert.equal(res.status, 200, res.text);
      return parseCsv(res.text).slice(1).map((r) => Number(r[0]));
    };
    const apiIds = async (query: string) => ((await app.api(`/payment/list${query}${query ? '&' : '?'}limit=300`, key)).json.results as { id: number }[]).map((i) => i.id);
    for (const query of ['?status=CANCELLED', '?type=MULTIPLE', '?currency=TRX,USDT&ordering=amount', '?search=line', '?ordering=-amount', '?ordering=status&currency=USDT', `?date_from=2000-01-01&date_to=2999_12_31`]) {
      const expected = await apiIds(query);
      assert.ok(expected.length > 0, query);
      assert.deepEqual(await csvIds(query), expected, query);
    }
    const bad = await session.request('/dashboard/api/invoices/export?status=NOPE');
    assert.equal(bad.status, 400);
    assert.match(bad.json.detail, /^status: /);
  });

  it('exports transactions with the transaction list\'s filters, without failed send attempts', async () => {
    const res = await session.request('/dashboard/api/transactions/export?ordering=created_at');
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-disposition']), /filename="transactions-/);
    const [header, ...rows] = parseCsv(res.text);
    assert.deepEqual(header, ['created_at', 'trn_hash', 'invoice', 'type', 'currency', 'amount', 'from_address', 'to_address', 'event_id', 'aml_status', 'aml_risk_score', 'aml_risk_level', 'network_cost_trx', 'group']);
    assert.equal(rows.length, 15);
    assert.deepEqual(rows.slice(0, 3).map((r) => r[1]), ['aa01', 'bb02', 'cc03']);
    // A payment cost the service no network fee, and is a group of its own: its own hash (issue 38, item 4).
    assert.deepEqual(rows[0]!.slice(2, 6).concat(rows[0]!.slice(9)), [String(ids.formula), 'PAYMENT', 'TRX', '20', 'SUCCESS', '12.5', 'low', '0', 'aa01']);
    assert.equal(rows[1]![7], '\'=cmd|"/c calc"!A1');
    const usdt = parseCsv((await session.request('/dashboard/api/transactions/export?currency=USDT&has_aml=false')).text);
    assert.deepEqual(usdt.slice(1).map((r) => r[1]), ['cc03']);
  });

  it('streams in keyset batches that add up to exactly the list, in every order', async () => {
    // PostgreSQL keeps microseconds, a JS Date milliseconds: rows a few microseconds apart
    // must neither be lost nor repeated at a batch boundary.
    await execute(app.prisma, sql`UPDATE transactions SET created_at = '2025-03-01T10:00:00.000100Z'::timestamptz + (id % 5) * interval '1 microsecond' WHERE trn_hash LIKE 'ee%'`);
    await execute(app.prisma, sql`UPDATE invoices SET created_at = '2025-03-01T10:00:00.000100Z'::timestamptz + (id % 7) * interval '1 microsecond' WHERE merchant_id = ${merchantId} AND order_id LIKE 'order-%'`);
    for (const ordering of ['created_at', '-created_at', 'amount', '-amount', 'status', '-status']) {
      const { limit: _limit, offset: _offset, ...q } = listInvoicesQuerySchema.parse({ ordering });
      const { rows } = await listInvoices(app.prisma, { id: merchantId, email: 'unused@example.com' }, q, { limit: 300, offset: 0 });
      const batched: number[] = [];
      for await (const batch of invoiceBatches(app.prisma, { id: merchantId, email: 'unused@example.com' }, q, 2)) {
        assert.ok(batch.length <= 2);
        batched.push(...batch.map((r) => r.id));
      }
      assert.deepEqual(batched, rows.map((r) => r.id), `invoices by ${ordering}`);
    }
    // The dashboard's list is of groups (issue 38, item 4); every row seeded here is a group of its own, so the list is these rows.
    for (const ordering of ['created_at', '-created_at', 'amount', '-amount', 'status', '-status']) {
      const { limit: _limit, offset: _offset, ...q } = dashboardTransactionsQuerySchema.parse({ ordering });
      const { rows } = await listTransactions(app.prisma, merchantId, q, { limit: 300, offset: 0 }, 'dashboard');
      const batched: number[] = [];
      for await (const batch of transactionBatches(app.prisma, merchantId, q, 'dashboard', 2)) batched.push(...batch.map((r) => r.id));
      assert.deepEqual(batched, rows.map((r) => r.id), `transactions by ${ordering}`);
    }
  });

  it('is for the signed-in merchant only', async () => {
    assert.equal((await httpRequest(`${app.baseUrl}/dashboard/api/invoices/export`)).status, 401);
    assert.equal((await httpRequest(`${app.baseUrl}/dashboard/api/transactions/export`)).status, 401);
    const other = await registerTestMerchant(app.prisma, { email: `o-${randomBytes(4).toString('hex')}@example.com`, password: PASSWORD });
    const stranger = new DashboardSession(app.baseUrl);
    assert.equal(await stranger.signIn(other.email, PASSWORD), null);
    assert.deepEqual(parseCsv((await stranger.request('/dashboard/api/invoices/export')).text).length, 1, 'only the header');
    assert.deepEqual(parseCsv((await stranger.request('/dashboard/api/transactions/export')).text).length, 1);
  });
});
