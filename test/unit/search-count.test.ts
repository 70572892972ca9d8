import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';

/**
 * The kept count of a text search (migration 0054, lib/invoices/searchCount.ts) is always the
 * exact count: after creations, late commits, text changes, deletions and TRUNCATE.
 */
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createTestDatabase } = await import('../helpers/db');
const { createPrisma, sqlPool } = await import('@/lib/db/client');
const { textSearchCount } = await import('@/lib/invoices/searchCount');

describe('the kept count of a text search', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prisma: ReturnType<typeof createPrisma>;
  let sql: pg.Pool;
  let merchantId = 0;
  let other = 0;
  let next = 0;

  /** `count` invoices of `merchant`, each description from `describe(i)`, by one INSERT (as a creation writes). */
  async function insert(merchant: number, count: number, describe: (i: number) => string | null, client: pg.Pool | pg.PoolClient = sql) {
    const rows = Array.from({ length: count }, (_, i) => ({ i: next++, d: describe(i) }));
    await client.query(
      `INSERT INTO invoices (merchant_id, type, currencies, address, address_index, description, expired_at)
       SELECT $1, 'SINGLE', '{TRX}', 'Taddr' || x.i, x.i, x.d, now() FROM unnest($2::int[], $3::text[]) AS x(i, d)`,
      [merchant, rows.map((r) => r.i), rows.map((r) => r.d)],
    );
  }
  /** What a plain count says, for the same matches. */
  async function plain(merchant: number, term: string): Promise<number> {
    const id = /^\d{1,9}$/.test(term) ? Number(term) : null;
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM invoices WHERE merchant_id = $1 AND (description ILIKE $2 OR address ILIKE $2 OR id = $3)`, [merchant, `%${term}%`, id]);
    return rows[0].n;
  }
  const entry = async (term: string) => (await sql.query('SELECT n::int, max_id FROM invoice_search_counts WHERE merchant_id = $1 AND term = $2', [merchantId, term])).rows[0] as { n: number; max_id: number } | undefined;

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
    sql = sqlPool(prisma);
    const made = await sql.query(`INSERT INTO merchants (email, topup_wallet_address, activation_wallet_address, webhook_secret_enc) VALUES ('a@x', 'Tt1', 'Ta1', 's'), ('b@x', 'Tt2', 'Ta2', 's') RETURNING id`);
    [merchantId, other] = made.rows.map((r) => r.id as number) as [number, number];
    await insert(merchantId, 300, (i) => (i % 3 === 0 ? 'Coffee for two' : i % 7 === 0 ? null : 'tea'));
    await insert(other, 50, () => 'coffee elsewhere');
  });
  after(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('counts in full the first time and keeps the count', async () => {
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
    assert.equal((await entry('coffee'))?.n, 100);
  });

  it('adds the invoices created since, without counting again', async () => {
    await insert(merchantId, 40, (i) => (i % 2 ? 'more coffee' : 'juice'));
    await insert(other, 10, () => 'coffee elsewhere');
    // The kept count is served, then brought up: a wrong kept count would show (it is the base).
    await sql.query('UPDATE invoice_search_counts SET n = n + 1000 WHERE merchant_id = $1 AND term = $2', [merchantId, 'coffee']);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), (await plain(merchantId, 'coffee')) + 1000);
    await sql.query('UPDATE invoice_search_counts SET n = n - 1000 WHERE merchant_id = $1 AND term = $2', [merchantId, 'coffee']);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
    const { rows } = await sql.query('SELECT max(id) AS m FROM invoices');
    assert.equal((await entry('coffee'))?.max_id, rows[0].m, 'the entry moved up to the newest invoice');
  });

  it("moves the entry past other merchants' creations, so a check scans few invoices", async () => {
    await insert(other, 1200, () => 'coffee elsewhere');
    // Marked: a count served from the entry shows the mark, a count in full would not.
    await sql.query('UPDATE invoice_search_counts SET n = n + 1000 WHERE merchant_id = $1 AND term = $2', [merchantId, 'coffee']);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), (await plain(merchantId, 'coffee')) + 1000, 'brought up, not counted again');
    const { rows } = await sql.query('SELECT max(id) AS m FROM invoices');
    assert.equal((await entry('coffee'))?.max_id, rows[0].m);
    await sql.query('UPDATE invoice_search_counts SET n = n - 1000 WHERE merchant_id = $1 AND term = $2', [merchantId, 'coffee']);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
  });

  it('counts again when an invoice committed late, under a smaller id than the kept one', async () => {
    const late = await sql.connect();
    try {
      await late.query('BEGIN');
      await insert(merchantId, 1, () => 'late coffee', late); // its id is taken now, its row is seen at COMMIT
      await insert(merchantId, 1, () => 'coffee after');
      assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
      await late.query('COMMIT');
    } finally {
      late.release();
    }
    const expected = await plain(merchantId, 'coffee');
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), expected);
    assert.equal((await entry('coffee'))?.n, expected);
  });

  it('counts again after a text change or a deletion', async () => {
    await sql.query(`UPDATE invoices SET description = 'no longer' WHERE id = (SELECT min(id) FROM invoices WHERE merchant_id = $1 AND description ILIKE '%coffee%')`, [merchantId]);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
    await sql.query(`DELETE FROM invoices WHERE id = (SELECT min(id) FROM invoices WHERE merchant_id = $1 AND description ILIKE '%coffee%')`, [merchantId]);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
    // A status change is no text change: the kept count stays (and stays right).
    const before = await sql.query('SELECT version::int FROM invoice_text_versions WHERE merchant_id = $1', [merchantId]);
    await sql.query(`UPDATE invoices SET status = 'COMPLETED' WHERE merchant_id = $1`, [merchantId]);
    const afterUpdate = await sql.query('SELECT version::int FROM invoice_text_versions WHERE merchant_id = $1', [merchantId]);
    assert.deepEqual(afterUpdate.rows, before.rows);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), await plain(merchantId, 'coffee'));
  });

  it('matches addresses, ids and escaped wildcards as the list does, per merchant', async () => {
    for (const term of ['Taddr1', 'ADDR2', '5', '%', '_', 'tea', 'nothing here']) {
      assert.equal(await textSearchCount(sql, merchantId, term), await plain(merchantId, term.replace(/[%_]/g, (c) => `\\${c}`)), term);
      assert.equal(await textSearchCount(sql, other, term), await plain(other, term.replace(/[%_]/g, (c) => `\\${c}`)), term);
    }
  });

  it('keeps at most 100 terms a merchant, and none after TRUNCATE', async () => {
    for (let i = 0; i < 105; i++) await textSearchCount(sql, merchantId, `term-${i}`);
    const { rows } = await sql.query('SELECT count(*)::int AS n FROM invoice_search_counts WHERE merchant_id = $1', [merchantId]);
    assert.equal(rows[0].n, 100);
    await sql.query('TRUNCATE invoices CASCADE');
    assert.equal((await sql.query('SELECT count(*)::int AS n FROM invoice_search_counts')).rows[0].n, 0);
    assert.equal(await textSearchCount(sql, merchantId, 'coffee'), 0);
  });
});
