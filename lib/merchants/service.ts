import { randomBytes } from 'node:crypto';
import { config } from '@/lib/config';
import { deriveAccount } from '@/lib/chain/keys';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { seal } from '@/lib/crypto/secretBox';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';

export interface NewMerchant {
  email: string;
  passwordHash?: string | null;
  targetWalletAddress?: string | null;
}

/**
 * Creates a merchant with its own HD account: the top-up and activation
 * addresses are derived from the merchant id, so the row is written first.
 */
export async function createMerchant(prisma: PrismaClient, input: NewMerchant): Promise<Merchant> {
  const mnemonic = config().HD_MNEMONIC;
  return prisma.$transaction(async (tx) => {
    // Placeholders satisfy the unique columns until the id is known.
    const placeholder = `pending:${randomBytes(12).toString('hex')}`;
    const created = await tx.merchant.create({
      data: {
        email: input.email.trim().toLowerCase(),
        passwordHash: input.passwordHash ?? null,
        targetWalletAddress: input.targetWalletAddress ?? null,
        webhookSecretEnc: seal(masterKeyRing(), randomBytes(32).toString('base64url')),
        topupWalletAddress: `${placeholder}:topup`,
        activationWalletAddress: `${placeholder}:activation`,
      },
    });
    return tx.merchant.update({
      where: { id: created.id },
      data: {
        topupWalletAddress: deriveAccount(mnemonic, created.id, 'topup').address,
        activationWalletAddress: deriveAccount(mnemonic, created.id, 'activation').address,
      },
    });
  });
}

