import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TEST_MNEMONIC } from '../helpers/app';

/**
 * The invoice list's fast paths (issue 16, migration 0040) against plain SQL over the same rows:
 * the counters behind `count`, the search count split into named and text parts, and deep pages
 * read by ids and from the far end. Every case must equal COUNT(*) and ORDER BY ... OFFSET.
 */
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createTestDatabase } = await import('../helpers/db');
const { createPrisma } = await import('@/lib/db/client');
const { createMerchant } = await import('@/lib/merchants/service');
const { listInvoices } = await import('@/lib/invoices/list');
const { listInvoicesQuerySchema } = await import('@/lib/invoices/schemas');

const N = 2500;

describe('invoice list at scale: counters, search count, deep pages', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prisma: ReturnType<typeof createPrisma>;
  let merchantId: number;
  let otherId: number;

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
    merchantId = (await createMerchant(prisma, { email: 'scale@example.com' })).id;
    otherId = (await createMerchant(prisma, { email: 'other@example.com' })).id;
    for (const [m, n] of [[merchantId, N], [otherId, 300]] as const) {
      await prisma.$executeRawUnsafe(`
        INSERT INTO invoices (merchant_id, type, status, amount_usd, currencies, address, address_index, private_key_enc, description, order_id, expired_at, created_at)
        SELECT ${m}, (CASE WHEN g % 7 = 0 THEN 'MULTIPLE' ELSE 'SINGLE' END)::"InvoiceType",
               (ARRAY['ACTIVE','COMPLETED','CANCELED','TIMEOUT','ERROR','AML_FAILED','OVERPAID','UNDERPAID'])[1 + g % 8]::"InvoiceStatus",
               CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 50) + 1 END,
               (CASE g % 3 WHEN 0 THEN '{TRX}' WHEN 1 THEN '{USDT}' ELSE '{TRX,USDT}' END)::"Currency"[],
               'T${m}x' || md5(g::text), g, 'x', CASE WHEN g % 4 = 0 THEN NULL ELSE (ARRAY['Coffee','tea usdt','Timeout cake'])[1 + g % 3] || ' #' || g END,
               CASE WHEN g % 6 = 0 THEN 'UX-' || g END, now(), timestamptz '2025-01-01' + (g % 400) * interval '1 day'
        FROM generate_series(1, ${n}) g`);
    }
    // Currency rows, which every page loads with its invoices (due_units = the invoice id, to check they match).
    await prisma.$executeRawUnsafe(`INSERT INTO invoice_currencies (invoice_id, currency, rate_usd, due_units, fee_units) SELECT id, c, 1, id, 0 FROM invoices, unnest(currencies) c`);
    // Changes after the counters were filled: status moves, deletes, a merchant change.
    await prisma.$executeRawUnsafe(`UPDATE invoices SET status = 'COMPLETED' WHERE merchant_id = ${merchantId} AND id % 5 = 0`);
    await prisma.$executeRawUnsafe(`UPDATE invoices SET currencies = '{TRX}' WHERE merchant_id = ${merchantId} AND id % 11 = 0`);
    await prisma.$executeRawUnsafe(`DELETE FROM invoices WHERE merchant_id = ${merchantId} AND id % 13 = 0`);
  });
  after(async () => {
    await prisma.$disconnect();
    await database.drop();
  });

  /** The same list by plain SQL: the reference the fast paths must equal. */
  async function reference(filters: string, order: string, limit: number, offset: number) {
    const where = `merchant_id = ${merchantId}${filters ? ` AND ${filters}` : ''}`;
    const [row] = await prisma.$queryRawUnsafe<{ count: bigint }[]>(`SELECT count(*) FROM invoices WHERE ${where}`);
    const ids = await prisma.$queryRawUnsafe<{ id: number }[]>(`SELECT id FROM invoices WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`);
    return { count: Number(row!.count), ids: ids.map((r) => r.id) };
  }

  const cases: [string, Record<string, string>, string, string][] = [
    ['default', {}, '', 'created_at DESC, id DESC'],
    ['status', { status: 'COMPLETED' }, `status = 'COMPLETED'`, 'created_at DESC, id DESC'],
    ['type', { type: 'MULTIPLE' }, `type = 'MULTIPLE'`, 'created_at DESC, id DESC'],
    ['currency TRX', { currency: 'TRX' }, `currencies @> '{TRX}'`, 'created_at DESC, id DESC'],
    ['currency both', { currency: 'TRX,USDT', ordering: 'amount' }, `currencies @> '{TRX,USDT}'`, 'amount_usd ASC NULLS FIRST, id ASC'],
    ['-amount', { ordering: '-amount' }, '', 'amount_usd DESC NULLS LAST, id DESC'],
    ['status ordering', { ordering: 'status', type: 'SINGLE' }, `type = 'SINGLE'`, 'status ASC, id ASC'],
    ['-status', { ordering: '-status' }, '', 'status DESC, id DESC'],
    ['dates', { date_from: '2025-02-01', date_to: '2025-06-30', ordering: 'created_at' }, `created_at >= '2025-02-01' AND created_at < '2025-07-01'`, 'created_at ASC, id ASC'],
    ['search text', { search: 'coffee' }, `(address ILIKE '%coffee%' OR description ILIKE '%coffee%' OR lower(order_id) LIKE 'coffee%')`, 'created_at DESC, id DESC'],
    ['search token', { search: 'usdt', status: 'ERROR' }, `status = 'ERROR' AND (address ILIKE '%usdt%' OR description ILIKE '%usdt%' OR lower(order_id) LIKE 'usdt%' OR currencies @> '{USDT}')`, 'created_at DESC, id DESC'],
    ['search status', { search: 'timeout' }, `(address ILIKE '%timeout%' OR description ILIKE '%timeout%' OR lower(order_id) LIKE 'timeout%' OR status = 'TIMEOUT')`, 'created_at DESC, id DESC'],
    // Order ids (issue 26), by their start: alone, and beside a status filter in another order.
    ['search order id', { search: 'ux-12' }, `(address ILIKE '%ux-12%' OR description ILIKE '%ux-12%' OR lower(order_id) LIKE 'ux-12%')`, 'created_at DESC, id DESC'],
    ['search order id, -amount', { search: 'UX-6', ordering: '-amount', status: 'ACTIVE' }, `status = 'ACTIVE' AND (address ILIKE '%ux-6%' OR description ILIKE '%ux-6%' OR lower(order_id) LIKE 'ux-6%')`, 'amount_usd DESC NULLS LAST, id DESC'],
    // Counted in disjoint parts (description, then address, order id, id, each without the earlier):
    // addresses whose invoice has no description, and a term matching all three.
    ['search address, no description', { search: '7a' }, `(address ILIKE '%7a%' OR description ILIKE '%7a%' OR lower(order_id) LIKE '7a%')`, 'created_at DESC, id DESC'],
    ['search digits in all three', { search: '14' }, `(address ILIKE '%14%' OR description ILIKE '%14%' OR lower(order_id) LIKE '14%' OR id = 14)`, 'created_at DESC, id DESC'],
    ['search id', { search: '1500' }, `(address ILIKE '%1500%' OR description ILIKE '%1500%' OR lower(order_id) LIKE '1500%' OR id = 1500)`, 'created_at DESC, id DESC'],
    ['search trx with dates', { search: 'TRX', date_to: '2025-03-01' }, `created_at < '2025-03-02' AND (address ILIKE '%trx%' OR description ILIKE '%trx%' OR lower(order_id) LIKE 'trx%' OR currencies @> '{TRX}')`, 'created_at DESC, id DESC'],
    // A search naming a status or a token is paged from its two parts (shallowPageIds, lib/invoices/list.ts): each
    // ordering, the other filters, and a filter that leaves one part empty.
    ['search status by amount', { search: 'Timeout', ordering: 'amount' }, `(address ILIKE '%timeout%' OR description ILIKE '%timeout%' OR lower(order_id) LIKE 'timeout%' OR status = 'TIMEOUT')`, 'amount_usd ASC NULLS FIRST, id ASC'],
    ['search status, -status', { search: 'cancelled', ordering: '-status', type: 'SINGLE' }, `type = 'SINGLE' AND (address ILIKE '%cancelled%' OR description ILIKE '%cancelled%' OR lower(order_id) LIKE 'cancelled%' OR status = 'CANCELED')`, 'status DESC, id DESC'],
    ['search status, other status', { search: 'timeout', status: 'AML_FAILED', ordering: 'created_at' }, `status = 'AML_FAILED' AND (address ILIKE '%timeout%' OR description ILIKE '%timeout%' OR lower(order_id) LIKE 'timeout%' OR status = 'TIMEOUT')`, 'created_at ASC, id ASC'],
    ['search token by -amount', { search: 'usdt', ordering: '-amount', currency: 'TRX' }, `currencies @> '{TRX}' AND (address ILIKE '%usdt%' OR description ILIKE '%usdt%' OR lower(order_id) LIKE 'usdt%' OR currencies @> '{USDT}')`, 'amount_usd DESC NULLS LAST, id DESC'],
    ['search trx, dates, status ordering', { search: 'trx', date_from: '2025-03-01', ordering: 'status' }, `created_at >= '2025-03-01' AND (address ILIKE '%trx%' OR description ILIKE '%trx%' OR lower(order_id) LIKE 'trx%' OR currencies @> '{TRX}')`, 'status ASC, id ASC'],
  ];

  for (const [name, query, filters, order] of cases) {
    it(`${name}: count and pages equal plain SQL, at every depth`, async () => {
      const total = (await reference(filters, order, 1, 0)).count;
      assert.ok(total > 0, 'the case selects something');
      for (const [limit, offset] of [[10, 0], [7, 3], [300, 0], [10, 500], [300, 699], [10, 1000], [25, 1010], [10, Math.max(0, total - 5)], [10, Math.max(0, total - 10)], [10, Math.floor(total * 0.6)], [10, total], [10, total + 50]] as const) {
        const q = listInvoicesQuerySchema.parse({ ...query, limit: String(limit), offset: String(offset) });
        const { limit: _l, offset: _o, ...filter } = q;
        const got = await listInvoices(prisma, { id: merchantId, email: 'scale@example.com' }, filter, q);
        const want = await reference(filters, order, q.limit, offset);
        assert.equal(got.count, want.count, `count at limit=${limit} offset=${offset}`);
        assert.deepEqual(got.rows.map((r) => r.id), want.ids, `page at limit=${limit} offset=${offset}`);
        // Each row carries its currency rows and the caller's contact.
        for (const r of got.rows) {
          assert.equal(r.merchant.email, 'scale@example.com');
          assert.ok(r.amounts.length > 0 && r.amounts.every((a) => a.invoiceId === r.id && a.dueUnits === BigInt(r.id)), `currency rows of ${r.id}`);
        }
      }
    });
  }

  it('counters follow inserts, updates and deletes; TRUNCATE clears them', async () => {
    const sums = await prisma.$queryRawUnsafe<{ merchant_id: number; n: bigint }[]>(`SELECT merchant_id, sum(n)::bigint AS n FROM invoice_counts GROUP BY 1 ORDER BY 1`);
    const counts = await prisma.$queryRawUnsafe<{ merchant_id: number; n: bigint }[]>(`SELECT merchant_id, count(*)::bigint AS n FROM invoices GROUP BY 1 ORDER BY 1`);
    assert.deepEqual(sums, counts);
    await prisma.$executeRawUnsafe('TRUNCATE invoices CASCADE');
    const [left] = await prisma.$queryRawUnsafe<{ n: bigint | null }[]>('SELECT sum(n)::bigint AS n FROM invoice_counts');
    assert.equal(left?.n, null);
  });
});
