import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Prisma as PrismaTypes } from '@/lib/generated/prisma/client';

/**
 * Raw SQL has one builder, the `sql` tag of lib/db/sql.ts (issue 39), and two executors: pg on the
 * pool, and Prisma's client or transaction (`queryRows`, `execute`), tested here on a real database.
 * The second replaced Prisma's own tag (`$queryRaw\`...\``), so what it returns is compared with
 * what Prisma's tag returned for the same query: the same raw query underneath, the same values.
 */
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createTestDatabase } = await import('../helpers/db');
const { createPrisma } = await import('@/lib/db/client');
const { execute, join, queryRows, Sql, sql } = await import('@/lib/db/sql');
const { Prisma } = await import('@/lib/generated/prisma/client');

describe("the sql tag on Prisma's client and transactions", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prisma: ReturnType<typeof createPrisma>;
  let merchantId = 0;

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
    merchantId = (await prisma.merchant.create({ data: { email: 'sql@example.com', topupWalletAddress: 'Ttopup', activationWalletAddress: 'Tact', webhookSecretEnc: 's' } })).id;
  });

  after(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('keeps a value that looks like SQL a value', async () => {
    const evil = "x'; DROP TABLE merchants; --";
    const [row] = await queryRows<{ v: string }>(prisma, sql`SELECT ${evil}::text AS v`);
    assert.equal(row!.v, evil);
    assert.deepEqual(await queryRows(prisma, sql`SELECT id FROM merchants WHERE email = ${"' OR true --"}`), []);
    assert.equal(await execute(prisma, sql`UPDATE merchants SET store_name = ${evil} WHERE id = ${merchantId}`), 1);
    assert.equal((await prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).storeName, evil);
    // The text holds only $n: no value of the query is in it.
    const q = sql`SELECT ${evil}::text AS v, ${7} AS n`.query();
    assert.equal(q.text, 'SELECT $1::text AS v, $2 AS n');
    assert.deepEqual(q.values, [evil, 7]);
  });

  it('inlines a fragment, numbering the parameters around it', async () => {
    const column = Sql.raw('email');
    const conditions = [sql`id = ${merchantId}`, sql`email LIKE ${'sql@%'}`];
    const q = sql`SELECT ${column} AS e, ${1}::int + ${Sql.raw('1')} AS two FROM merchants WHERE ${join(conditions, ' AND ')}`;
    assert.equal(q.query().text, 'SELECT email AS e, $1::int + 1 AS two FROM merchants WHERE id = $2 AND email LIKE $3');
    assert.deepEqual(await queryRows(prisma, q), [{ e: 'sql@example.com', two: 2 }]);
  });

  it("returns bigint, Decimal, Date and arrays as Prisma's tag did", async () => {
    const big = 2n ** 62n + 12_345n; // beyond a float's integers
    const at = new Date('2026-01-02T03:04:05.678Z');
    const ids = [merchantId, 0];
    const states = ['DETECTED', 'FORWARDING'];
    // A builder of the same query in either tag: Prisma's (as the code had it) and ours.
    const query = <Q>(tag: (s: TemplateStringsArray, ...v: unknown[]) => Q) => tag`
      SELECT ${big}::bigint AS big, count(*) AS n, sum(balance_sun) AS total, 1.25::numeric AS dec, ${at}::timestamptz AS at, now() > ${at} AS after,
             ${ids}::int[] AS ids, ${null}::int IS NULL AS none, (SELECT count(*) FROM transactions WHERE payment_state = ANY(${states}::"PaymentState"[]))::int AS due
      FROM merchants WHERE id = ANY(${ids}::int[])`;
    const ours = await queryRows<Record<string, unknown>>(prisma, query(sql));
    const theirs = await prisma.$queryRaw<Record<string, unknown>[]>(query(Prisma.sql));
    assert.deepEqual(ours, theirs);
    const [row] = ours;
    assert.equal(row!.big, big);
    assert.equal(row!.n, 1n);
    assert.ok(row!.total instanceof Prisma.Decimal); // sum of int8 is numeric
    assert.ok(row!.dec instanceof Prisma.Decimal && (row!.dec as PrismaTypes.Decimal).equals('1.25'));
    assert.ok(row!.at instanceof Date && (row!.at as Date).getTime() === at.getTime());
    assert.equal(row!.after, true);
    assert.deepEqual(row!.ids, ids);
    assert.equal(row!.none, true);
    assert.equal(row!.due, 0);
    // A bigint parameter written and read back through execute.
    assert.equal(await execute(prisma, sql`UPDATE merchants SET balance_sun = ${big} WHERE id = ${merchantId}`), 1);
    assert.equal((await prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).balanceSun, big);
    assert.deepEqual(await execute(prisma, sql`UPDATE merchants SET balance_sun = 0 WHERE id = ${-1}`), 0);
  });

  it("runs inside an interactive transaction, on the transaction's connection", async () => {
    await assert.rejects(
      prisma.$transaction(async (tx) => {
        const [locked] = await queryRows<{ id: number }>(tx, sql`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`);
        assert.equal(locked!.id, merchantId);
        assert.equal(await execute(tx, sql`UPDATE merchants SET store_name = ${'inside'} WHERE id = ${merchantId}`), 1);
        // Seen by the transaction itself, not yet by another connection.
        assert.deepEqual(await queryRows(tx, sql`SELECT store_name FROM merchants WHERE id = ${merchantId}`), [{ store_name: 'inside' }]);
        assert.notEqual((await prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).storeName, 'inside');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.notEqual((await prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).storeName, 'inside');
    // Committed when the transaction is.
    await prisma.$transaction(async (tx) => {
      await execute(tx, sql`UPDATE merchants SET store_name = ${'committed'} WHERE id = ${merchantId}`);
    });
    assert.equal((await prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).storeName, 'committed');
  });

  it('is a Prisma promise: one of a batch transaction, run when awaited', async () => {
    const [set, rows] = await prisma.$transaction([
      execute(prisma, sql`UPDATE merchants SET store_name = ${'batch'} WHERE id = ${merchantId}`),
      queryRows<{ store_name: string }>(prisma, sql`SELECT store_name FROM merchants WHERE id = ${merchantId}`),
    ]);
    assert.equal(set, 1);
    assert.deepEqual(rows, [{ store_name: 'batch' }]);
    // Not awaited, nothing runs.
    void execute(prisma, sql`UPDATE merchants SET store_name = ${'never'} WHERE id = ${merchantId}`);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } })).storeName, 'batch');
  });
});
