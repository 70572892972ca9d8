import { and, join, sql, type Queryable, type Sql } from '@/lib/db/sql';
import { disjoint, invoiceSearch, searchPredicate } from './search';

/**
 * The exact number of a merchant's invoices a text search matches (its description, address or
 * order id contains the term, or the term is its id: search.ts), for the list's `count` (spec
 * 4.2). Counting a common word visits every matching row (search=coffee: 200,000 rows, 160-270 ms), so the count is kept
 * per merchant and term in invoice_search_counts and brought up to date from the invoices
 * created since (migration 0054, which says why it stays exact). The first search of a term, or
 * one after an invoice's text changed or an invoice was deleted, counts in full.
 */

/** Entries kept per merchant; the oldest counted go first. */
const KEPT_TERMS = 100;
/** Ids created (by any merchant) past an entry before a reader moves it up, so a check scans few. */
const REFRESH_AFTER_IDS = 1000;

interface Entry {
  n: bigint;
  total: bigint;
  maxId: number;
  textVersion: bigint;
}

export async function textSearchCount(db: Queryable, merchantId: number, term: string): Promise<number> {
  const { text } = invoiceSearch(term);
  const entry = await db
    .query({ name: 'search-count-entry', text: 'SELECT n::text, total::text, max_id, text_version::text FROM invoice_search_counts WHERE merchant_id = $1 AND term = $2', values: [merchantId, term] })
    .then(({ rows }) => (rows[0] ? ({ n: BigInt(rows[0].n), total: BigInt(rows[0].total), maxId: rows[0].max_id, textVersion: BigInt(rows[0].text_version) } satisfies Entry) : null));
  if (entry) {
    // One statement, one snapshot: the merchant's total and text version now, the invoices above
    // the entry's largest id, and the largest id of all. Unnamed, so the plan knows the id (a
    // range of the primary key).
    const { rows } = await db.query(
      sql`SELECT (SELECT COALESCE(sum(n), 0) FROM invoice_counts WHERE merchant_id = ${merchantId})::text AS total,
              (SELECT COALESCE(max(version), 0) FROM invoice_text_versions WHERE merchant_id = ${merchantId})::text AS text_version,
              count(*)::text AS new_rows,
              (count(*) FILTER (WHERE ${searchPredicate({ text })}))::text AS new_matches,
              (SELECT COALESCE(max(id), 0) FROM invoices) AS max_id
         FROM invoices WHERE id > ${entry.maxId} AND merchant_id = ${merchantId}`.query(),
    );
    const now = rows[0];
    const newRows = BigInt(now.new_rows);
    if (BigInt(now.text_version) === entry.textVersion && BigInt(now.total) - newRows === entry.total) {
      const n = entry.n + BigInt(now.new_matches);
      // Kept up to this snapshot when the merchant has new invoices, or when other merchants'
      // creations would make the next range scan long (the kept id is the largest of all).
      if (newRows > 0n || now.max_id - entry.maxId > REFRESH_AFTER_IDS) await save(db, merchantId, term, { n, total: BigInt(now.total), maxId: now.max_id, textVersion: entry.textVersion });
      return Number(n);
    }
  }
  // In full, in one statement (one snapshot, and each part may use parallel workers): the text
  // matches in disjoint parts (search.ts: description; address without it; order id without
  // both; id without all three), so each row
  // is tested for its own substring, with the total, the largest id and the text version.
  const parts = disjoint(text).map((part): Sql => sql`(SELECT count(*) FROM invoices WHERE ${and([sql`merchant_id = ${merchantId}`, part])})`);
  const { rows } = await db.query(
    sql`SELECT ${join(parts, ' + ')} AS n,
            (SELECT COALESCE(sum(n), 0) FROM invoice_counts WHERE merchant_id = ${merchantId})::text AS total,
            (SELECT COALESCE(max(id), 0) FROM invoices) AS max_id,
            (SELECT COALESCE(max(version), 0) FROM invoice_text_versions WHERE merchant_id = ${merchantId})::text AS text_version`.query(),
  );
  const counted = rows[0];
  const n = BigInt(counted.n);
  await save(db, merchantId, term, { n, total: BigInt(counted.total), maxId: counted.max_id, textVersion: BigInt(counted.text_version) });
  await db.query({
    name: 'search-count-evict',
    text: 'DELETE FROM invoice_search_counts WHERE merchant_id = $1 AND term IN (SELECT term FROM invoice_search_counts WHERE merchant_id = $1 ORDER BY counted_at DESC OFFSET $2)',
    values: [merchantId, KEPT_TERMS],
  });
  return Number(n);
}

/**
 * Stores an entry counted in one snapshot, unless the stored one is from a later snapshot: text
 * versions, totals (invoices are deleted only with a version change) and ids only grow.
 */
async function save(db: Queryable, merchantId: number, term: string, e: Entry): Promise<void> {
  await db.query({
    name: 'search-count-save',
    text: `INSERT INTO invoice_search_counts (merchant_id, term, n, total, max_id, text_version) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (merchant_id, term) DO UPDATE SET n = EXCLUDED.n, total = EXCLUDED.total, max_id = EXCLUDED.max_id, text_version = EXCLUDED.text_version, counted_at = now()
            WHERE (EXCLUDED.text_version, EXCLUDED.total, EXCLUDED.max_id) > (invoice_search_counts.text_version, invoice_search_counts.total, invoice_search_counts.max_id)`,
    values: [merchantId, term, e.n.toString(), e.total.toString(), e.maxId, e.textVersion.toString()],
  });
}
