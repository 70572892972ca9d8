import type { InvoiceStatus } from '@/lib/generated/prisma/client';
import { and, not, or, sql, Sql } from '@/lib/db/sql';
import { CURRENCIES, type Currency } from '@/lib/money/tokens';
import { likeLiteral } from '@/lib/schemas/listQuery';
import { parseStatus } from './states';

/**
 * What the invoice list's `search` matches (spec 4.2, docs/api.md), written once for the list's
 * page, its count, the kept count (searchCount.ts) and the CSV export:
 *
 * - `text`: what only rows can answer: a case-insensitive substring of the description or the
 *   address (trigram indexes, migration 0040), the start of the order id, case-insensitive (a
 *   range of the btree index on lower(order_id), migration 0061: a merchant types an order id
 *   or its beginning, and the order ids of a shop share their prefix, whose trigrams a
 *   substring search would have to walk for every invoice), or the exact id. The order is the
 *   order of the disjoint parts a count adds up (`disjoint`): the description first, the most
 *   common match of a word.
 * - `named`: the status or the token the term names (`canceled`, `usdt`), which the counters
 *   (invoice_counts) can answer too: `rows` is its condition on invoices, `counters` on
 *   invoice_counts.
 */
export interface InvoiceSearch {
  text: Sql[];
  named?: { rows: Sql; counters: Sql };
}

/** The invoice id a search term names (1 to 9 digits), which the search matches besides text. */
export function searchedId(term: string): number | undefined {
  return /^\d{1,9}$/.test(term) ? Number(term) : undefined;
}

export function invoiceSearch(term: string): InvoiceSearch {
  const pattern = `%${likeLiteral(term)}%`;
  const id = searchedId(term);
  const text = [sql`description ILIKE ${pattern}`, sql`address ILIKE ${pattern}`, sql`lower(order_id) LIKE lower(${`${likeLiteral(term)}%`}::text)`, ...(id !== undefined ? [sql`id = ${id}`] : [])];
  return { text, named: namedBy(term) };
}

function namedBy(term: string): InvoiceSearch['named'] {
  const status: InvoiceStatus | undefined = parseStatus(term);
  if (status) return { rows: sql`status = ${status}::"InvoiceStatus"`, counters: sql`status = ${status}::"InvoiceStatus"` };
  const upper = term.toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(upper)) return undefined;
  const currency = upper as Currency;
  return { rows: sql`currencies @> ${[currency]}::text[]::"Currency"[]`, counters: Sql.raw(currency === 'TRX' ? 'accepts_trx' : 'accepts_usdt') };
}

/** The whole predicate: any text match or the named status or token. */
export function searchPredicate(s: InvoiceSearch): Sql {
  return or([...s.text, ...(s.named ? [s.named.rows] : [])]);
}

/**
 * The same matches as `parts` OR-ed, split so that no row is in two of them (each part without
 * the earlier ones), for a count that adds them up: each row is tested for its own substring,
 * where one count of the OR would test every column on every row (search=coffee, 200,000
 * descriptions: about a quarter less time).
 */
export function disjoint(parts: readonly Sql[]): Sql[] {
  return parts.map((part, i) => and([part, ...parts.slice(0, i).map(not)]));
}
