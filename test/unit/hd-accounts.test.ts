import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TronWeb, utils } from 'tronweb';
import { TEST_MNEMONIC } from '../helpers/app';

/**
 * Account xpubs (issue 16, migration 0041): the web derives addresses from them, the worker
 * derives keys from the mnemonic, and both must name the same addresses, for new merchants and
 * for merchants and invoices made before the migration.
 */
Object.assign(process.env, { MASTER_KEY: randomBytes(32).toString('hex'), HD_MNEMONIC: TEST_MNEMONIC, DATABASE_URL: 'postgres://unused@127.0.0.1/unused' });
const { createTestDatabase } = await import('../helpers/db');
const { createPrisma } = await import('@/lib/db/client');
const { accountXpub, addressFromXpub, deriveAccount } = await import('@/lib/chain/keys');
const { claimAccount, invoiceAccount, prepareAccounts, PREPARED_ACCOUNTS } = await import('@/lib/merchants/accounts');
const { createMerchant } = await import('@/lib/merchants/service');
const { allocateInvoiceAddress } = await import('@/lib/invoices/service');
const { AppError } = await import('@/lib/errors');
const { httpStatusOf } = await import('@/lib/http/errors');

describe('HD account xpubs', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let prisma: ReturnType<typeof createPrisma>;
  before(async () => {
    database = await createTestDatabase();
    prisma = createPrisma(database.url);
  });
  after(async () => {
    await prisma.$disconnect();
    await database.drop();
  });

  it('derive from the xpub exactly the addresses the mnemonic gives', () => {
    for (const account of [0, 1, 7, 2 ** 31 - 1]) {
      const xpub = accountXpub(TEST_MNEMONIC, account);
      assert.match(xpub, /^xpub/);
      // The xpub path is its own BIP32 arithmetic (lib/chain/keys.ts): spread indices up to the last non-hardened one.
      const spread = Array.from({ length: 40 }, (_, i) => ['invoice', (i * 2_654_435_761) % 2 ** 31] as const);
      for (const [role, index] of [['invoice', 0], ['invoice', 1], ['invoice', 999_999], ['invoice', 2 ** 31 - 1], ...spread, ['topup', 0], ['activation', 0], ['gas', 0]] as const) {
        assert.equal(addressFromXpub(xpub, role, index), deriveAccount(TEST_MNEMONIC, account, role, index).address, `${account}'/${role}/${index}`);
      }
    }
  });

  it('derive the keys ethers derives from the phrase along each whole path, in any order', () => {
    const { ethersHDNodeWallet } = utils.ethersUtils;
    const other = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    // Accounts and addresses asked for out of order and twice, so the kept account nodes (lib/chain/keys.ts) are reused across them.
    const asked = [[TEST_MNEMONIC, 5, 'invoice', 3], [TEST_MNEMONIC, 0, 'gas', 0], [other, 5, 'invoice', 3], [TEST_MNEMONIC, 2 ** 31 - 1, 'topup', 0], [TEST_MNEMONIC, 5, 'activation', 0], [TEST_MNEMONIC, 1, 'invoice', 2 ** 31 - 1], [TEST_MNEMONIC, 5, 'invoice', 3]] as const;
    for (const [phrase, account, role, index] of asked) {
      const rolePath = `m/44'/195'/${account}'/${{ invoice: 0, topup: 1, activation: 2, gas: 3 }[role]}/${index}`;
      const expected = ethersHDNodeWallet.fromPhrase(phrase, undefined, rolePath);
      const got = deriveAccount(phrase, account, role, index);
      assert.equal(got.privateKey, expected.privateKey.slice(2), rolePath);
      assert.equal(got.address, TronWeb.address.fromPrivateKey(expected.privateKey.slice(2)), rolePath);
      assert.equal(accountXpub(phrase, account), ethersHDNodeWallet.fromPhrase(phrase, undefined, `m/44'/195'/${account}'`).neuter().extendedKey, `m/44'/195'/${account}'`);
    }
  });

  it('derive an account again as the same keys, each caller its own copy, under another mnemonic other keys', () => {
    const first = deriveAccount(TEST_MNEMONIC, 3, 'invoice', 5);
    const again = deriveAccount(TEST_MNEMONIC, 3, 'invoice', 5);
    assert.deepEqual(again, first);
    // The worker keeps derived accounts (lib/chain/keys.ts); a caller changing its copy changes no one else's.
    again.privateKey = '00'.repeat(32);
    assert.equal(deriveAccount(TEST_MNEMONIC, 3, 'invoice', 5).privateKey, first.privateKey);
    assert.equal(TronWeb.address.fromPrivateKey(first.privateKey), first.address);
    const other = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    assert.notEqual(deriveAccount(other, 3, 'invoice', 5).address, first.address);
    assert.equal(deriveAccount(other, 3, 'invoice', 5).address, addressFromXpub(accountXpub(other, 3), 'invoice', 5));
  });

  it('give merchants from before the migration their xpub, which derives their existing addresses', async () => {
    // A merchant and an invoice as the code before migration 0041 made them: addresses from the mnemonic, no xpub.
    const id = 40;
    const old = (role: 'invoice' | 'topup' | 'activation', i = 0) => deriveAccount(TEST_MNEMONIC, id, role, i).address;
    await prisma.merchant.create({ data: { id, email: 'old@example.com', webhookSecretEnc: 'x', topupWalletAddress: old('topup'), activationWalletAddress: old('activation'), nextAddressIndex: 4 } });
    const invoice = await prisma.invoice.create({ data: { merchantId: id, type: 'SINGLE', currencies: ['TRX'], address: old('invoice', 3), addressIndex: 3, privateKeyEnc: 'sealed-before', expiredAt: new Date() } });
    await prepareAccounts(prisma, TEST_MNEMONIC);
    const merchant = await prisma.merchant.findUniqueOrThrow({ where: { id } });
    assert.equal(merchant.accountXpub, accountXpub(TEST_MNEMONIC, id));
    assert.equal(addressFromXpub(merchant.accountXpub!, 'invoice', 3), invoice.address);
    assert.equal(invoiceAccount(invoice).privateKey, deriveAccount(TEST_MNEMONIC, id, 'invoice', 3).privateKey);
    // Prepared accounts: the service's and PREPARED_ACCOUNTS above every merchant id.
    const accounts = (await prisma.hdAccount.findMany({ orderBy: { account: 'asc' } })).map((a) => a.account);
    assert.deepEqual(accounts, [0, ...Array.from({ length: PREPARED_ACCOUNTS }, (_, i) => id + 1 + i)]);
    // New invoices of the old merchant: fresh indexes, never one it already used. The migration's
    // own statement sets the sequence, as it would have with these rows already there.
    const setval = readFileSync(path.join(import.meta.dirname, '../../prisma/migrations/0041_account_xpubs/migration.sql'), 'utf8').split('\n').find((l) => l.startsWith('SELECT setval'));
    await prisma.$executeRawUnsafe(setval!);
    const next = await allocateInvoiceAddress(prisma, merchant);
    assert.ok(next.addressIndex > 3);
    assert.equal(next.address, old('invoice', next.addressIndex));
  });

  it('refuse a merchant whose stored addresses another mnemonic made', async () => {
    await prisma.merchant.create({ data: { id: 1000, email: 'wrong@example.com', webhookSecretEnc: 'x', topupWalletAddress: deriveAccount(TEST_MNEMONIC, 999, 'topup').address, activationWalletAddress: 'Tother' } });
    await assert.rejects(prepareAccounts(prisma, TEST_MNEMONIC), /merchant 1000: its stored addresses are not those of account 1000'/);
    await prisma.merchant.delete({ where: { id: 1000 } });
  });

  it('hand each parallel sign-up its own account, and the worker refuses an address that is not its key', async () => {
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => createMerchant(prisma, { email: `p${i}@example.com` })));
    assert.equal(new Set(made.map((m) => m.id)).size, 12);
    for (const m of made) {
      assert.equal(m.accountXpub, accountXpub(TEST_MNEMONIC, m.id));
      assert.equal(m.topupWalletAddress, deriveAccount(TEST_MNEMONIC, m.id, 'topup').address);
    }
    assert.throws(() => invoiceAccount({ merchantId: made[0]!.id, address: made[1]!.topupWalletAddress, addressIndex: 0 }), /is not m\/44'\/195'/);
  });

  it('answer 503 when no account is prepared (a web sign-up before the worker ran)', async () => {
    await prisma.hdAccount.deleteMany({ where: { account: { gt: 0 } } });
    await assert.rejects(prisma.$transaction((tx) => claimAccount(tx)), (err) => err instanceof AppError && err.code === 'UNAVAILABLE' && httpStatusOf(err.code) === 503);
  });
});
