import { accountXpub, addressFromXpub, deriveAccount, type DerivedAccount } from '@/lib/chain/keys';
import { config } from '@/lib/config';
import { AppError } from '@/lib/errors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql, type PrismaRaw } from '@/lib/db/sql';
import { cell } from '@/lib/singletons';

/** Free merchant accounts kept prepared; sign-up takes one each. */
export const PREPARED_ACCOUNTS = 50;
/** The service's own account: its gas wallet is 0'/gas/0 (lib/chain/keys.ts). */
export const SERVICE_ACCOUNT = 0;

/**
 * The HD mnemonic, for the processes that hold it (worker, scripts, tests); the web process
 * does not (issue 16), and asking for it there is a bug.
 */
export function hdMnemonic(): string {
  const mnemonic = config().HD_MNEMONIC;
  if (!mnemonic) throw new Error('HD_MNEMONIC is not set: only the worker and the scripts derive keys (docs/configuration.md)');
  return mnemonic;
}

/**
 * Run by every process that holds the mnemonic (scripts/run.ts before the web starts, the seed,
 * the worker at start and then every minute, the tests' helpers):
 * 1. merchants without an xpub (created before migration 0041) get theirs, after checking that it
 *    derives the top-up and activation addresses they already have, so nothing they hold moves;
 * 2. account 0 and PREPARED_ACCOUNTS free accounts above every merchant id are in hd_accounts.
 * Idempotent and safe to run from several processes at once.
 */
export async function prepareAccounts(prisma: PrismaClient, mnemonic: string, ahead = PREPARED_ACCOUNTS): Promise<void> {
  for (const m of await prisma.merchant.findMany({ where: { accountXpub: null }, select: { id: true, topupWalletAddress: true, activationWalletAddress: true } })) {
    const xpub = accountXpub(mnemonic, m.id);
    if (addressFromXpub(xpub, 'topup', 0) !== m.topupWalletAddress || addressFromXpub(xpub, 'activation', 0) !== m.activationWalletAddress) {
      throw new Error(`merchant ${m.id}: its stored addresses are not those of account ${m.id}' of HD_MNEMONIC; is this the mnemonic it was created with?`);
    }
    await prisma.merchant.updateMany({ where: { id: m.id, accountXpub: null }, data: { accountXpub: xpub } });
  }
  const rows: { account: number; xpub: string }[] = [];
  if (!(await prisma.hdAccount.findUnique({ where: { account: SERVICE_ACCOUNT } }))) rows.push({ account: SERVICE_ACCOUNT, xpub: accountXpub(mnemonic, SERVICE_ACCOUNT) });
  const free = await prisma.hdAccount.count({ where: { account: { gt: SERVICE_ACCOUNT } } });
  if (free < ahead) {
    const [row] = await queryRows<{ top: number }>(prisma, sql`SELECT GREATEST((SELECT max(id) FROM merchants), (SELECT max(account) FROM hd_accounts), 0)::int AS top`);
    const top = row?.top ?? 0;
    for (let i = 1; i <= ahead - free; i++) rows.push({ account: top + i, xpub: accountXpub(mnemonic, top + i) });
  }
  if (rows.length > 0) await prisma.hdAccount.createMany({ data: rows, skipDuplicates: true });
}

export const NO_ACCOUNT_PREPARED = 'No account keys are prepared yet; the worker prepares them, try again in a minute.';

/** Takes the lowest free prepared account (SKIP LOCKED: parallel sign-ups take different ones), in the caller's transaction. */
export async function claimAccount(tx: PrismaRaw): Promise<{ account: number; xpub: string }> {
  const [claimed] = await queryRows<{ account: number; xpub: string }>(tx, sql`
    DELETE FROM hd_accounts WHERE account = (
      SELECT account FROM hd_accounts WHERE account > ${SERVICE_ACCOUNT} ORDER BY account LIMIT 1 FOR UPDATE SKIP LOCKED
    ) RETURNING account, xpub`);
  if (!claimed) throw new AppError('UNAVAILABLE', NO_ACCOUNT_PREPARED);
  return claimed;
}

/** The service's gas wallet address, from account 0's xpub: the web shows and estimates with it without the mnemonic. */
export async function gasWalletAddress(prisma: PrismaClient): Promise<string> {
  const gasWallet = cell('gasWallet');
  if (gasWallet.value) return gasWallet.value;
  const row = await prisma.hdAccount.findUnique({ where: { account: SERVICE_ACCOUNT } });
  if (!row) throw new AppError('UNAVAILABLE', NO_ACCOUNT_PREPARED);
  gasWallet.value = addressFromXpub(row.xpub, 'gas', 0);
  return gasWallet.value;
}

/**
 * The key of an invoice's address, for the worker when it signs: derived from the mnemonic at
 * m/44'/195'/<merchant>'/0/<address_index>, and refused unless it is the invoice's address.
 * Invoices keep no usable key of their own (migration 0041).
 */
export function invoiceAccount(invoice: { merchantId: number; address: string; addressIndex: number }): DerivedAccount {
  const account = deriveAccount(hdMnemonic(), invoice.merchantId, 'invoice', invoice.addressIndex);
  if (account.address !== invoice.address) throw new Error(`invoice address ${invoice.address} is not m/44'/195'/${invoice.merchantId}'/0/${invoice.addressIndex} of HD_MNEMONIC`);
  return account;
}
