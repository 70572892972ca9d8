import { deriveAccount } from '@/lib/chain/keys';
import { hashApiKey, DISPLAY_PREFIX_LENGTH } from '@/lib/auth/apiKeys';
import { API_KEY_SCOPES } from '@/lib/auth/scopes';
import { hashPassword, verifyPassword } from '@/lib/auth/passwords';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { hdMnemonic } from './accounts';
import { createMerchant } from './service';

export const DEMO_EMAIL = 'demo@example.com';
// The demo payout wallet sits on an account index no real merchant id reaches.
const DEMO_WALLET_ACCOUNT = 2 ** 31 - 1;

export function demoPayoutWallet(): string {
  return deriveAccount(hdMnemonic(), DEMO_WALLET_ACCOUNT, 'invoice').address;
}

/**
 * Idempotent: creates the demo merchant once, makes sure `apiKey` is one of its
 * keys and, when given, that `dashboardPassword` signs its owner (DEMO_EMAIL) in to the dashboard.
 */
export async function ensureDemoMerchant(prisma: PrismaClient, apiKey: string, dashboardPassword?: string) {
  const merchant =
    (await prisma.merchant.findUnique({ where: { email: DEMO_EMAIL } })) ??
    (await createMerchant(prisma, { email: DEMO_EMAIL, targetWalletAddress: demoPayoutWallet() }));
  // The demo store's owner signs in with DEMO_EMAIL (a user since migration 0101).
  const owner = await prisma.user.findUniqueOrThrow({ where: { email: DEMO_EMAIL } });
  if (dashboardPassword && !(await verifyPassword(dashboardPassword, owner.passwordHash))) {
    await prisma.user.update({ where: { id: owner.id }, data: { passwordHash: await hashPassword(dashboardPassword) } });
  }
  const keyHash = hashApiKey(apiKey);
  await prisma.apiKey.upsert({
    where: { keyHash },
    // The demo key may call everything, to try every endpoint with it.
    update: { revokedAt: null, scopes: [...API_KEY_SCOPES] },
    create: { merchantId: merchant.id, label: 'demo', prefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH), keyHash, scopes: [...API_KEY_SCOPES] },
  });
  return merchant;
}
