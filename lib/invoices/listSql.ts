import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Page } from '@/lib/schemas/page';
import { dayStartUtc, nextDayStartUtc } from '@/lib/time';
import type { ListInvoicesQuery } from './schemas';

/**
 * The invoice list without a search, in SQL run through pg (issue 16): the count from the
 * trigger-kept counters (or the rows, for a date filter) and one page's ids along the
 * ordering's index, the same queries Prisma built from invoiceListQuery (lib/invoices/service.ts)
 * at a sixth of the CPU. test/invoice-list-scale.test.ts compares both with plain SQL at every
 * depth, every filter and every ordering.
 */

const ORDER_SQL: Record<string, string> = {
  created_at: 'created_at ASC, id ASC',
  '-created_at': 'created_at DESC, id DESC',
  // MULTIPLE invoices (no amount) first when ascending, last when descending: the index
  // (merchant_id, amount_usd NULLS FIRST, id) walked either way (migration 0040).
  amount: 'amount_usd ASC NULLS FIRST, id ASC',
  '-amount': 'amount_usd DESC NULLS LAST, id DESC',
  status: 'status ASC, id ASC',
  '-status': 'status DESC, id DESC',
};

interface Filter {
  clauses: string[];
  values: unknown[];
}

function rowFilter(merchantId: number, q: ListInvoicesQuery): Filter {
  const values: unknown[] = [merchantId];
  const clauses = ['merchant_id = $1'];
  const add = (clause: (n: string) => string, value: unknown) => {
    values.push(value);
    clauses.push(clause(`$${values.length}`));
  };
  if (q.type) add((p) => `type = ${p}::"InvoiceType"`, q.type);
  if (q.status) add((p) => `status = ${p}::"InvoiceStatus"`, q.status);
  // "TRX,USDT" means invoices that accept both tokens (hasEvery).
  if (q.currency) add((p) => `currencies @> ${p}::text[]::"Currency"[]`, q.currency);
  if (q.date_from) add((p) => `created_at >= ${p}`, dayStartUtc(q.date_from));
  if (q.date_to) add((p) => `created_at < ${p}`, nextDayStartUtc(q.date_to));
  return { clauses, values };
}

/** A named statement per distinct text: each connection parses and plans each filter shape once. */
function named(text: string, values: unknown[]): pg.QueryConfig {
  return { name: `invoice-list-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text, values };
}

/** The exact count of a list without a search (spec 4.2). */
export async function plainListCount(sql: pg.Pool, merchantId: number, q: ListInvoicesQuery): Promise<number> {
  if (q.date_from || q.date_to) {
    const { clauses, values } = rowFilter(merchantId, q);
    const { rows } = await sql.query(named(`SELECT count(*)::text AS n FROM invoices WHERE ${clauses.join(' AND ')}`, values));
    return Number(rows[0].n);
  }
  // The counters (migration 0040): kept in the same statement as the rows, so a snapshot sees both
  // at one moment. They have the rows' merchant, type and status columns; tokens are flags.
  const { clauses, values } = rowFilter(merchantId, { ...q, currency: undefined });
  if (q.currency?.includes('TRX')) clauses.push('accepts_trx');
  if (q.currency?.includes('USDT')) clauses.push('accepts_usdt');
  const { rows } = await sql.query(named(`SELECT COALESCE(sum(n), 0)::text AS n FROM invoice_counts WHERE ${clauses.join(' AND ')}`, values));
  return Number(rows[0].n);
}

/** The ids of one page of a list without a search, in its order. */
export async function plainListPageIds(sql: pg.Pool, merchantId: number, q: ListInvoicesQuery, page: Page): Promise<number[]> {
  const order = ORDER_SQL[q.ordering];
  if (!order) throw new Error(`unknown ordering ${q.ordering}`);
  const { clauses, values } = rowFilter(merchantId, q);
  const limit = values.push(page.limit);
  const offset = values.push(page.offset);
  const { rows } = await sql.query(named(`SELECT id FROM invoices WHERE ${clauses.join(' AND ')} ORDER BY ${order} LIMIT $${limit} OFFSET $${offset}`, values));
  return rows.map((r) => r.id as number);
}
