import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

/**
 * The API's per-request reads go through pg, not Prisma's client (lib/db/rows.ts, issue 16):
 * each mapper must give exactly the object Prisma reads for the same row, every column, with
 * every column set and with every nullable one null.
 */
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createTestDatabase } = await import('../helpers/db');
const { createPrisma, sqlPool } = await import('@/lib/db/client');
const { INVOICE_COLUMNS, INVOICE_CURRENCY_COLUMNS, MERCHANT_COLUMNS, invoiceCurrencyFromRow, invoiceFromRow, invoicesWithAmounts, merchantFromRow } = await import('@/lib/db/rows');

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Values as they can be told apart: a BigInt is not its string, a Decimal is its digits, a Date its instant. */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)));

describe('rows read with pg as Prisma reads them', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prisma: ReturnType<typeof createPrisma>;
  const ids = { full: 0, bare: 0, fullInvoice: 0, bareInvoice: 0 };

  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
    const big = 2n ** 62n + 12_345n; // beyond a float's integers
    const full = await prisma.merchant.create({
      data: {
        email: 'full@example.com', targetWalletAddress: 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd', topupWalletAddress: 'Ttopup1', activationWalletAddress: 'Tact1',
        webhookUrl: 'https://h.example/w', webhookSecretEnc: 'sealed', amlCheck: true, amlRiskLimit: '55.25', balanceSun: big, activationBalanceSun: big + 1n,
        ipWhitelist: ['10.0.0.0/8', '2001:db8::1'], nextAddressIndex: 7, accountXpub: 'xpub-x', targetWalletChangedAt: new Date('2026-01-02T03:04:05.678Z'),
      },
    });
    const bare = await prisma.merchant.create({ data: { email: 'bare@example.com', topupWalletAddress: 'Ttopup2', activationWalletAddress: 'Tact2', webhookSecretEnc: 's' } });
    ids.full = full.id;
    ids.bare = bare.id;
    const fullInvoice = await prisma.invoice.create({
      data: {
        merchantId: full.id, type: 'MULTIPLE_TRANSFER', status: 'ERROR', amountUsd: '123456789.000001', currencies: ['USDT', 'TRX'], orderId: 'o\'"\\ü', address: 'Tinv1', addressIndex: 2 ** 31 - 1,
        privateKeyEnc: 'v1.sealed', clientCommission: true, webhookUrl: 'https://h.example/i', redirectUrl: 'https://h.example/r', description: 'd',
        targetWallets: [{ address: 'Tx', amount: 1.5 }], failedTargets: [{ index: 0, address: 'Tx', amount: '1.5', error: 'e' }], leaseOwner: 'w1', leaseUntil: new Date('2026-05-06T07:08:09.123Z'),
        costUnits: big, costCurrency: 'USDT', expiredAt: new Date('2026-06-01T00:00:00.001Z'),
        amounts: { create: [{ currency: 'TRX', rateUsd: '0.123456789012', dueUnits: big, feeUnits: 1n, receivedUnits: big - 1n, forwardedUnits: 2n }, { currency: 'USDT', rateUsd: '1', dueUnits: 5n, feeUnits: 0n }] },
      },
    });
    const bareInvoice = await prisma.invoice.create({ data: { merchantId: bare.id, type: 'MULTIPLE', currencies: ['TRX'], address: 'Tinv2', addressIndex: 0, expiredAt: new Date() } });
    ids.fullInvoice = fullInvoice.id;
    ids.bareInvoice = bareInvoice.id;
  });
  after(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  it('merchants', async () => {
    for (const id of [ids.full, ids.bare]) {
      const { rows } = await sqlPool(prisma).query(`SELECT ${MERCHANT_COLUMNS('m')} FROM merchants m WHERE m.id = $1`, [id]);
      assert.deepEqual(plain(merchantFromRow(rows[0])), plain(await prisma.merchant.findUniqueOrThrow({ where: { id } })));
    }
  });

  it('invoices and their per-token rows', async () => {
    for (const id of [ids.fullInvoice, ids.bareInvoice]) {
      const { rows } = await sqlPool(prisma).query(`SELECT ${INVOICE_COLUMNS('i')} FROM invoices i WHERE i.id = $1`, [id]);
      assert.deepEqual(plain(invoiceFromRow(rows[0])), plain(await prisma.invoice.findUniqueOrThrow({ where: { id } })));
    }
    const { rows } = await sqlPool(prisma).query(`SELECT ${INVOICE_CURRENCY_COLUMNS} FROM invoice_currencies WHERE invoice_id = $1 ORDER BY currency`, [ids.fullInvoice]);
    assert.deepEqual(plain(rows.map(invoiceCurrencyFromRow)), plain(await prisma.invoiceCurrency.findMany({ where: { invoiceId: ids.fullInvoice }, orderBy: { currency: 'asc' } })));
  });

  it('are derived from prisma/schema.prisma, made at npm install: the table is current, and a column added to a model is read without being written down again', async () => {
    const { rowModelsSource } = await import('../../scripts/rowModels');
    assert.equal(readFileSync(path.join(ROOT, 'lib/generated/rowModels.ts'), 'utf8'), rowModelsSource(), 'lib/generated/rowModels.ts is stale: run npm install (its postinstall) after changing prisma/schema.prisma');
    const schema = readFileSync(path.join(ROOT, 'prisma/schema.prisma'), 'utf8').replace('model InvoiceCurrency {', 'model InvoiceCurrency {\n  noteUnits BigInt? @map("note_units")');
    assert.match(rowModelsSource(schema), /"field": "noteUnits",\s*"column": "note_units",\s*"type": "BigInt",\s*"nullable": true/);
    assert.doesNotMatch(rowModelsSource(), /noteUnits/);
  });

  it('invoicesWithAmounts: the merchant\'s invoices only, in the order asked, each with its rows', async () => {
    const both = await prisma.invoice.findMany({ where: { id: { in: [ids.fullInvoice, ids.bareInvoice] } }, include: { amounts: { orderBy: { currency: 'asc' } } } });
    const full = both.find((i) => i.id === ids.fullInvoice)!;
    assert.deepEqual(plain(await invoicesWithAmounts(sqlPool(prisma), ids.full, [999_999, ids.bareInvoice, ids.fullInvoice])), plain([full]));
    const bare = both.find((i) => i.id === ids.bareInvoice)!;
    assert.deepEqual(plain(await invoicesWithAmounts(sqlPool(prisma), ids.bare, [ids.bareInvoice, ids.fullInvoice])), plain([bare]));
    assert.deepEqual(await invoicesWithAmounts(sqlPool(prisma), ids.bare, []), []);
  });
});
