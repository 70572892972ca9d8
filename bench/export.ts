/**
 * The dashboard's transaction CSV export on a large merchant: BENCH_EXPORT_ROWS
 * (default 1,000,000) transactions, streamed through csvStream(transactionBatches())
 * as the route does, consumed as fast as possible. Prints rows, bytes, time and
 * the process's peak RSS / heap growth: memory must stay flat in the row count.
 * Needs PostgreSQL at TEST_DATABASE_URL.
 *   npx tsx bench/export.ts
 */
import { randomBytes } from 'node:crypto';
import { TEST_MNEMONIC } from '../test/helpers/app';
import { createTestDatabase } from '../test/helpers/db';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const ORDERING = process.env.BENCH_EXPORT_ORDERING ?? '-created_at';
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createPrisma } = await import('@/lib/db/client');
const { createMerchant } = await import('@/lib/merchants/service');
const { csvStream } = await import('@/lib/export/csv');
const { dashboardRowBatches, TRANSACTION_CSV_HEADER, transactionCsvRow } = await import('@/lib/transactions/csv');
const { dashboardTransactionsQuerySchema } = await import('@/lib/transactions/schemas');
const { transactionBatches } = await import('@/lib/transactions/service');

const database = await createTestDatabase();
const prisma = createPrisma(database.url);
try {
  const merchant = await createMerchant(prisma, { email: 'export-bench@example.com', targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd' });
  let t = Date.now();
  await prisma.$executeRawUnsafe(`
    INSERT INTO transactions (merchant_id, type, trn_hash, chain_ref, from_address, to_address, amount_units, currency, payment_state, created_at, updated_at)
    SELECT ${merchant.id}, 'PAYMENT', md5(g::text), md5(g::text) || ':trx', 'TFromAddressFromAddressFromAddres', 'TToAddressToAddressToAddressToAdd', (g % 1000000) * 1000, 'TRX', 'SETTLED',
           now() - (g || ' seconds')::interval, now()
    FROM generate_series(1, ${ROWS}) g`);
  await prisma.$executeRawUnsafe('ANALYZE transactions');
  console.log(`seeded ${ROWS} transactions in ${Date.now() - t} ms`);

  global.gc?.();
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  let bytes = 0;
  let lines = 0;
  t = Date.now();
  const reader = csvStream(TRANSACTION_CSV_HEADER, dashboardRowBatches(prisma, transactionBatches(prisma, merchant.id, dashboardTransactionsQuerySchema.parse({ ordering: ORDERING }), 'dashboard')), transactionCsvRow).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (const c of decoder.decode(value, { stream: true })) if (c === '\n') lines++;
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }
  const ms = Date.now() - t;
  if (lines - 1 !== ROWS) throw new Error(`exported ${lines - 1} rows, not ${ROWS}`);
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  console.log(`exported ${lines - 1} rows (${mb(bytes)}) ordered by ${ORDERING} in ${ms} ms (${Math.round((lines - 1) / (ms / 1000))} rows/s)`);
  console.log(`rss ${mb(base.rss)} -> peak ${mb(peakRss)}; heap used ${mb(base.heapUsed)} -> peak ${mb(peakHeap)}`);
} finally {
  await prisma.$disconnect();
  await database.drop();
}
