import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createPrisma } from '@/lib/db/client';
import { queryRows, sql } from '@/lib/db/sql';
import { startEmbeddedPostgres } from '@/lib/db/embedded';
import { migrate, MIGRATIONS_DIR } from '@/lib/db/migrate';
import { freePort } from '../helpers/app';
import { createTestDatabase } from '../helpers/db';

describe('migrations', () => {
  it('apply once, are idempotent, and refuse an edited applied migration', async () => {
    const database = await createTestDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      assert.deepEqual(await migrate(database.url, dir), [], 'createTestDatabase already migrated');
      await cp(path.join(MIGRATIONS_DIR, '0001_init'), path.join(dir, '9999_extra'), { recursive: true });
      await writeFile(path.join(dir, '9999_extra', 'migration.sql'), 'CREATE TABLE extra (id int);');
      assert.deepEqual(await migrate(database.url, dir), ['9999_extra']);
      await writeFile(path.join(dir, '9999_extra', 'migration.sql'), 'CREATE TABLE extra (id bigint);');
      await assert.rejects(migrate(database.url, dir), /was changed after it was applied/);
    } finally {
      await rm(dir, { recursive: true });
      await database.drop();
    }
  });

  it('roll back a failing migration whole', async () => {
    const database = await createTestDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'migrations-'));
    try {
      await cp(MIGRATIONS_DIR, dir, { recursive: true });
      await cp(path.join(MIGRATIONS_DIR, '0001_init'), path.join(dir, '9999_bad'), { recursive: true });
      await writeFile(path.join(dir, '9999_bad', 'migration.sql'), 'CREATE TABLE half (id int); SELECT no_such_function();');
      await assert.rejects(migrate(database.url, dir), /9999_bad failed/);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query("SELECT to_regclass('half') AS t");
      await client.end();
      assert.equal(rows[0].t, null);
    } finally {
      await rm(dir, { recursive: true });
      await database.drop();
    }
  });
});

// Twenty transactions queue for ten connections and one row lock: on a busy machine the last ones
// wait longer than Prisma's 2 s default to start, which says nothing about what this test checks.
const TXN_WAIT = { maxWait: 60_000, timeout: 60_000 };

describe('embedded PostgreSQL (the npm run dev default)', () => {
  it('serves migrations and two Prisma clients with interleaved transactions, and persists', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'embedded-pg-'));
    const options = { dir: path.join(root, 'postgres'), port: await freePort(), password: 'pw-' + Date.now(), logFile: path.join(root, 'postgres.log') };
    let embedded = await startEmbeddedPostgres(options);
    try {
      await migrate(embedded.url);
      const web = createPrisma(embedded.url);
      const worker = createPrisma(embedded.url);
      const webhookSecretEnc = 'v1.x.x.x.x';
      await web.merchant.create({ data: { email: 'a@x', webhookSecretEnc, topupWalletAddress: 'T1', activationWalletAddress: 'T2' } });
      // Both sides bump the same counter in concurrent transactions (read, then write);
      // a real server runs them at once, so the row lock is what makes every increment land.
      await Promise.all(
        [web, worker].flatMap((client) =>
          Array.from({ length: 10 }, () =>
            client.$transaction(async (tx) => {
              const [m] = await queryRows<{ id: number; next: number }>(tx, sql`SELECT id, next_address_index AS next FROM merchants WHERE email = 'a@x' FOR UPDATE`);
              await tx.merchant.update({ where: { id: m!.id }, data: { nextAddressIndex: m!.next + 1 } });
            }, TXN_WAIT),
          ),
        ),
      );
      assert.equal((await worker.merchant.findFirstOrThrow({ where: { email: 'a@x' } })).nextAddressIndex, 20);
      await web.$disconnect();
      await worker.$disconnect();
      await embedded.stop();
      embedded = await startEmbeddedPostgres(options);
      const again = createPrisma(embedded.url);
      assert.equal((await again.merchant.findFirstOrThrow({ where: { email: 'a@x' } })).nextAddressIndex, 20);
      await again.$disconnect();
    } finally {
      await embedded.stop();
      await rm(root, { recursive: true });
    }
  });
});

describe('master key rotation', () => {
  it('re-seals every secret under the new key so the old one can be dropped', async () => {
    const { randomBytes } = await import('node:crypto');
    const { keyRingFrom, open, seal } = await import('@/lib/crypto/secretBox');
    const { resealSecrets } = await import('@/lib/crypto/reseal');
    const database = await createTestDatabase();
    const prisma = createPrisma(database.url);
    try {
      const oldKey = randomBytes(32).toString('hex');
      const newKey = randomBytes(32).toString('hex');
      const oldRing = keyRingFrom(oldKey);
      const m = await prisma.merchant.create({ data: { email: 'r@x', webhookSecretEnc: seal(oldRing, 'hook-secret'), topupWalletAddress: 'T1', activationWalletAddress: 'T2' } });
      await prisma.invoice.create({ data: { merchantId: m.id, type: 'SINGLE', currencies: ['TRX'], address: 'Tinv', addressIndex: 0, privateKeyEnc: seal(oldRing, 'pk-hex'), expiredAt: new Date() } });
      const rotated = keyRingFrom(newKey, oldKey);
      assert.deepEqual(await resealSecrets(prisma, rotated), { invoices: 1, merchants: 1, users: 0 });
      assert.deepEqual(await resealSecrets(prisma, rotated), { invoices: 0, merchants: 0, users: 0 });
      const newOnly = keyRingFrom(newKey);
      assert.equal(open(newOnly, (await prisma.invoice.findFirstOrThrow()).privateKeyEnc ?? ''), 'pk-hex');
      assert.equal(open(newOnly, (await prisma.merchant.findFirstOrThrow()).webhookSecretEnc), 'hook-secret');
    } finally {
      await prisma.$disconnect();
      await database.drop();
    }
  });
});

describe('demo merchant seed', () => {
  it('is idempotent, keeps one key per value and sets a working dashboard password', async () => {
    const { randomBytes } = await import('node:crypto');
    Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: 'test test test test test test test test test test test junk', DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
    const { ensureDemoMerchant, demoPayoutWallet } = await import('@/lib/merchants/demo');
    const { verifyPassword } = await import('@/lib/auth/passwords');
    const { hashApiKey } = await import('@/lib/auth/apiKeys');
    const database = await createTestDatabase();
    const prisma = createPrisma(database.url);
    try {
      const first = await ensureDemoMerchant(prisma, 'tk_demo_key_number_one_123456', 'first password');
      const again = await ensureDemoMerchant(prisma, 'tk_demo_key_number_one_123456', 'second password');
      assert.equal(again.id, first.id);
      assert.equal(again.targetWalletAddress, demoPayoutWallet());
      assert.equal(await prisma.merchant.count(), 1);
      assert.equal(await prisma.apiKey.count({ where: { keyHash: hashApiKey('tk_demo_key_number_one_123456') } }), 1);
      const owner = () => prisma.user.findUniqueOrThrow({ where: { email: again.email } });
      const hash = (await owner()).passwordHash;
      assert.ok(await verifyPassword('second password', hash));
      assert.ok(!(await verifyPassword('first password', hash)));
      const members = await prisma.membership.findMany({ select: { merchantId: true, role: true, user: { select: { email: true, passwordHash: true } } }, orderBy: { id: 'asc' } });
      assert.deepEqual(members.map((m) => [m.merchantId, m.user.email, m.role]), [[again.id, 'demo@example.com', 'owner'], [again.id, 'finance@example.com', 'finance']], 'the owner and a second member to try roles with');
      assert.ok(await verifyPassword('second password', members[1]!.user.passwordHash), 'the second member signs in with the same password');
      await ensureDemoMerchant(prisma, 'tk_demo_key_number_one_123456');
      assert.equal((await owner()).passwordHash, hash, 'no password given: the old one stays');
    } finally {
      await prisma.$disconnect();
      await database.drop();
    }
  });
});

describe("Prisma's statements (issue 41: PostgreSQL parsed and planned them again at every poll)", () => {
  it('are prepared once on a connection and run again by name; a session statement is sent as written', async () => {
    const database = await createTestDatabase();
    const prisma = createPrisma(database.url);
    try {
      // Each query waits for the one before: the pool hands them its one idle connection.
      await prisma.merchant.findFirst({ where: { email: 'nobody@example.com' } });
      await prisma.merchant.findFirst({ where: { email: 'someone@example.com' } });
      await prisma.$executeRawUnsafe("SET application_name = 'named statements'");
      const prepared = await queryRows<{ name: string; statement: string; runs: bigint }>(prisma, sql`SELECT name, statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements`);
      const reads = prepared.filter((p) => p.statement.includes('FROM "public"."merchants"'));
      assert.deepEqual(
        reads.map((p) => [p.name.startsWith('prisma-'), Number(p.runs)]),
        [[true, 2]],
        'the two reads are one prepared statement, run twice',
      );
      assert.equal(prepared.filter((p) => p.statement.includes('application_name')).length, 0, 'SET is not prepared');
    } finally {
      await prisma.$disconnect();
      await database.drop();
    }
  });
});
