import type pg from 'pg';
import { sqlPool, type PrismaClient } from '@/lib/db/client';
import { invoicesWithAmounts } from '@/lib/db/rows';
import { and, not, sql, Sql, type Queryable } from '@/lib/db/sql';
import type { Merchant } from '@/lib/generated/prisma/client';
import type { Page } from '@/lib/schemas/page';
import { dayStartUtc, nextDayStartUtc } from '@/lib/time';
import type { INVOICE_ORDERING, ListInvoicesQuery } from './schemas';
import { disjoint, invoiceSearch, searchPredicate, type InvoiceSearch } from './search';
import { textSearchCount } from './searchCount';
import type { InvoiceJsonSource, InvoiceRecord } from './serialize';

/**
 * The invoice list (spec 4.2): its filters, orderings, search and count, each written once here
 * as SQL fragments (lib/db/sql.ts) and run through pg on the pool under Prisma's client (a
 * Prisma model query costs six times the CPU of its SQL, docs/performance.md). The page, the
 * count, a deep page and the CSV export compose the same fragments; what differs between them is
 * only how the rows are reached fast at a million invoices (docs/performance.md, "How the list
 * stays fast"). test/unit/invoice-list-scale.test.ts compares every variant with plain SQL.
 */

/** The merchant a list is read for: its id scopes every query, its e-mail is each invoice's `merchant_contact`. */
export type InvoiceOwner = Pick<Merchant, 'id' | 'email'>;

/** The list's filters and order: the query without its page. */
export type InvoiceListFilter = Omit<ListInvoicesQuery, 'limit' | 'offset'>;

type Ordering = (typeof INVOICE_ORDERING)[number];

/** Each ordering's column, its type (to read a keyset bound back) and whether it has NULLs. */
const ORDER_COLUMNS: Record<Ordering, { column: string; type: string; nullable: boolean }> = {
  created_at: { column: 'created_at', type: 'timestamptz', nullable: false },
  amount: { column: 'amount_usd', type: 'numeric', nullable: true },
  status: { column: 'status', type: '"InvoiceStatus"', nullable: false },
};

function orderColumn(ordering: string) {
  const o = ORDER_COLUMNS[ordering.replace(/^-/, '') as Ordering];
  if (!o) throw new Error(`unknown ordering ${ordering}`);
  return o;
}

/**
 * ORDER BY for the ordering, or its exact reverse; ties by id in the same direction. Amounts sort
 * MULTIPLE invoices (no amount) first ascending and last descending: the one index
 * (merchant_id, amount_usd NULLS FIRST, id) walked either way (migration 0040).
 */
function orderBy(ordering: string, reversed = false): Sql {
  const { column, nullable } = orderColumn(ordering);
  const descending = ordering.startsWith('-') !== reversed;
  const direction = descending ? 'DESC' : 'ASC';
  const nulls = nullable ? (descending ? ' NULLS LAST' : ' NULLS FIRST') : '';
  return Sql.raw(`${column} ${direction}${nulls}, id ${direction}`);
}

/** The rows after `last` in the ordering (keyset paging): `key` is its ordering column as text. */
function after(ordering: string, last: { key: string | null; id: number }): Sql {
  const { column, type, nullable } = orderColumn(ordering);
  const c = Sql.raw(column);
  const t = Sql.raw(type);
  if (ordering.startsWith('-')) {
    if (last.key === null) return sql`(${c} IS NULL AND id < ${last.id})`;
    return nullable ? sql`((${c}, id) < (${last.key}::${t}, ${last.id}) OR ${c} IS NULL)` : sql`(${c}, id) < (${last.key}::${t}, ${last.id})`;
  }
  if (last.key === null) return sql`((${c} IS NULL AND id > ${last.id}) OR ${c} IS NOT NULL)`;
  return sql`(${c}, id) > (${last.key}::${t}, ${last.id})`;
}

/** The filters invoices and their counters (invoice_counts, migration 0040) both have as columns. */
function sharedFilters(merchantId: number, f: InvoiceListFilter): Sql[] {
  return [sql`merchant_id = ${merchantId}`, ...(f.type ? [sql`type = ${f.type}::"InvoiceType"`] : []), ...(f.status ? [sql`status = ${f.status}::"InvoiceStatus"`] : [])];
}

/** Every filter but the search, on invoices. "TRX,USDT" means invoices that accept both tokens. */
function filters(merchantId: number, f: InvoiceListFilter): Sql[] {
  return [
    ...sharedFilters(merchantId, f),
    ...(f.currency ? [sql`currencies @> ${f.currency}::text[]::"Currency"[]`] : []),
    ...(f.date_from ? [sql`created_at >= ${dayStartUtc(f.date_from)}`] : []),
    ...(f.date_to ? [sql`created_at < ${nextDayStartUtc(f.date_to)}`] : []),
  ];
}

/** The same filters on the counters, which hold tokens as flags; null for days, which they cannot answer. */
function counterFilters(merchantId: number, f: InvoiceListFilter): Sql[] | null {
  if (f.date_from || f.date_to) return null;
  return [...sharedFilters(merchantId, f), ...(f.currency?.includes('TRX') ? [Sql.raw('accepts_trx')] : []), ...(f.currency?.includes('USDT') ? [Sql.raw('accepts_usdt')] : [])];
}

/** A list query, taken apart once: what every read below composes. */
interface ListQuery {
  merchantId: number;
  filter: InvoiceListFilter;
  filters: Sql[];
  search: InvoiceSearch | undefined;
  /** filters and the search: the list's WHERE. */
  where: Sql;
  /**
   * The statement name prefix, without a search only: a named statement is planned generically
   * after five runs, which suits fixed filters, but a search's plan depends on its term (a rare
   * term through the trigram indexes, a common one along the ordering's index).
   */
  name: string | undefined;
}

function listQuery(merchantId: number, filter: InvoiceListFilter): ListQuery {
  const search = filter.search ? invoiceSearch(filter.search) : undefined;
  const f = filters(merchantId, filter);
  return { merchantId, filter, filters: f, search, where: and([...f, ...(search ? [searchPredicate(search)] : [])]), name: search ? undefined : 'invoice-list' };
}

async function one(db: Queryable, q: Sql, name: string | undefined): Promise<number> {
  const { rows } = await db.query(q.query(name));
  return Number(rows[0].n);
}

const countRows = (db: Queryable, where: Sql, name: string | undefined) => one(db, sql`SELECT count(*)::text AS n FROM invoices WHERE ${where}`, name);
const sumCounters = (db: Queryable, where: Sql, name: string | undefined) => one(db, sql`SELECT COALESCE(sum(n), 0)::text AS n FROM invoice_counts WHERE ${where}`, name);

/**
 * The list's exact `count` (spec 4.2). Filters on type, status and tokens are summed from the
 * counters, kept by triggers in the same statement as the rows (migration 0040), so a snapshot
 * sees both at one moment; days count rows. A search that names a status or a token takes that
 * part from the counters and counts only the other (text) matches from rows, in disjoint parts,
 * so none is counted twice. A text search alone, outside a snapshot (`kept`), is the count kept
 * per term (searchCount.ts).
 */
async function countInvoices(db: Queryable, q: ListQuery, kept: pg.Pool | undefined): Promise<number> {
  const counters = counterFilters(q.merchantId, q.filter);
  if (!counters) return countRows(db, q.where, q.name);
  if (!q.search) return sumCounters(db, and(counters), q.name);
  const { text, named } = q.search;
  if (!named && !q.filter.type && !q.filter.status && !q.filter.currency && kept) return textSearchCount(kept, q.merchantId, q.filter.search!);
  const notNamed = named ? [not(named.rows)] : [];
  const counts = await Promise.all([
    named ? sumCounters(db, and([...counters, named.counters]), undefined) : 0,
    ...disjoint(text).map((part) => countRows(db, and([...q.filters, part, ...notNamed]), undefined)),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}

async function ids(db: Queryable, where: Sql, order: Sql, limit: number, offset: number, name: string | undefined): Promise<number[]> {
  const { rows } = await db.query(sql`SELECT id FROM invoices WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`.query(name));
  return rows.map((r) => r.id as number);
}

/**
 * A page's ids below DEEP_OFFSET, along the ordering's index. A search that names a status or a
 * token (`search=canceled`) is read in two parts, split as its count is: the plain OR can only be
 * walked along the ordering's index testing both substrings on every row, and when the newest
 * invoices lack that status (all ACTIVE, say) the walk passes thousands of them. The named part
 * goes along its own index, the text part through the trigram indexes without the named rows;
 * the page is among the first offset + limit ids of each, so those ids, filtered again (an
 * invoice changed since is not shown as matching when it no longer does) and ordered, give
 * exactly the page of the OR.
 */
async function shallowPageIds(db: Queryable, q: ListQuery, page: Page): Promise<number[]> {
  const order = orderBy(q.filter.ordering);
  if (!q.search?.named) return ids(db, q.where, order, page.limit, page.offset, q.name);
  const { text, named } = q.search;
  const take = page.offset + page.limit;
  const parts = await Promise.all([and([...q.filters, named.rows]), and([...q.filters, searchPredicate({ text }), not(named.rows)])].map((part) => ids(db, part, order, take, 0, undefined)));
  return ids(db, and([q.where, sql`id = ANY(${parts.flat()}::int[])`]), order, page.limit, page.offset, undefined);
}

/** From this offset on, a page is found by ids first (deepPage). */
const DEEP_OFFSET = 1000;

/**
 * A deep page. OFFSET still passes every skipped entry, so (1) only ids are read, from the index
 * of the ordering (an index-only scan: no invoice row is fetched for a skipped entry), (2) past
 * the middle the page is read from the other end, reversed, which skips count - offset - limit
 * entries instead of offset (offset=900000 of 1,000,000 skips 99,990), and (3) only the page's
 * rows are then loaded. Count, ids and rows come from one REPEATABLE READ snapshot, so the
 * window from the end is the same page the offset names.
 */
async function deepPage(pool: pg.Pool, q: ListQuery, page: Page) {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const count = await countInvoices(client, q, undefined);
    let pageIds: number[] = [];
    if (page.offset < count) {
      const before = count - page.offset - page.limit;
      pageIds =
        before < page.offset
          ? (await ids(client, q.where, orderBy(q.filter.ordering, true), Math.min(page.limit, count - page.offset), Math.max(0, before), q.name)).reverse()
          : await ids(client, q.where, orderBy(q.filter.ordering), page.limit, page.offset, q.name);
    }
    const rows = await invoicesWithAmounts(client, q.merchantId, pageIds);
    await client.query('COMMIT');
    return { count, rows };
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * A page of the merchant's invoices and the exact count (spec 4.2). `merchant` is the caller the
 * route has already loaded: every row of the list is its, so its contact (invoiceJson's
 * merchant_contact) is not read again per page.
 */
export async function listInvoices(prisma: PrismaClient, merchant: InvoiceOwner, filter: InvoiceListFilter, page: Page): Promise<{ count: number; rows: InvoiceJsonSource[] }> {
  const pool = sqlPool(prisma);
  const q = listQuery(merchant.id, filter);
  const contact = { email: merchant.email };
  if (page.offset >= DEEP_OFFSET) {
    const { count, rows } = await deepPage(pool, q, page);
    return { count, rows: rows.map((r) => ({ ...r, merchant: contact })) };
  }
  // Count and page side by side; the page's rows and their currency rows in one more round trip.
  const [count, rows] = await Promise.all([countInvoices(pool, q, pool), shallowPageIds(pool, q, page).then((pageIds) => invoicesWithAmounts(pool, merchant.id, pageIds))]);
  return { count, rows: rows.map((r) => ({ ...r, merchant: contact })) };
}

/**
 * Every invoice the list's filters match, in its order, `batchSize` at a time, for the CSV
 * export: keyset paging on the list's total order (each batch starts after the last row of the
 * previous one, through the ordering's index, not at an ever larger OFFSET), so nothing is held
 * but the batch in hand.
 */
export async function* invoiceBatches(prisma: PrismaClient, merchant: InvoiceOwner, filter: InvoiceListFilter, batchSize = 1000): AsyncGenerator<InvoiceRecord[]> {
  const pool = sqlPool(prisma);
  const q = listQuery(merchant.id, filter);
  const key = Sql.raw(`${orderColumn(filter.ordering).column}::text`);
  const contact = { email: merchant.email };
  let last: { key: string | null; id: number } | undefined;
  for (;;) {
    const where = last ? and([q.where, after(filter.ordering, last)]) : q.where;
    const { rows } = await pool.query(sql`SELECT id, ${key} AS key FROM invoices WHERE ${where} ORDER BY ${orderBy(filter.ordering)} LIMIT ${batchSize}`.query(q.name && 'invoice-export'));
    if (rows.length > 0) yield (await invoicesWithAmounts(pool, merchant.id, rows.map((r) => r.id as number))).map((r) => ({ ...r, merchant: contact }));
    if (rows.length < batchSize) return;
    last = rows[rows.length - 1] as { key: string | null; id: number };
  }
}
