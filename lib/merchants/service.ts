import { randomBytes } from 'node:crypto';
import { config } from '@/lib/config';
import { addressFromXpub } from '@/lib/chain/keys';
import { claimAccount, prepareAccounts } from './accounts';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { seal } from '@/lib/crypto/secretBox';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';

export interface NewMerchant {
  email: string;
  passwordHash?: string | null;
  targetWalletAddress?: string | null;
}

/**
 * Creates a merchant on a prepared HD account (lib/merchants/accounts.ts): the merchant's id is
 * the account number, and its top-up and activation addresses derive from the account's xpub, so
 * no mnemonic is needed here (the web's sign-up). A process that holds the mnemonic (scripts,
 * tests) prepares accounts first when none is left. The store is created with its owner: a user
 * of the same e-mail (with `passwordHash`, the dashboard login) and an owner membership, in one
 * transaction (sign-up, the demo store, the tests' merchants).
 */
export async function createMerchant(prisma: PrismaClient, input: NewMerchant): Promise<Merchant> {
  const mnemonic = config().HD_MNEMONIC;
  if (mnemonic) await prepareAccounts(prisma, mnemonic, 1);
  const email = input.email.trim().toLowerCase();
  return prisma.$transaction(async (tx) => {
    const { account, xpub } = await claimAccount(tx);
    const merchant = await tx.merchant.create({
      data: {
        id: account,
        accountXpub: xpub,
        email,
        targetWalletAddress: input.targetWalletAddress ?? null,
        webhookSecretEnc: seal(masterKeyRing(), randomBytes(32).toString('base64url')),
        topupWalletAddress: addressFromXpub(xpub, 'topup', 0),
        activationWalletAddress: addressFromXpub(xpub, 'activation', 0),
      },
    });
    // The store's first login, its owner (migration 0101): a user of the e-mail, with the password given.
    const user = await tx.user.create({ data: { email, passwordHash: input.passwordHash ?? null } });
    await tx.membership.create({ data: { userId: user.id, merchantId: merchant.id, role: 'owner' } });
    return merchant;
  });
}

