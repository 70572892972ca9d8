import { deriveAccount } from '@/lib/chain/keys';
import { hashApiKey, DISPLAY_PREFIX_LENGTH } from '@/lib/auth/apiKeys';
import { API_KEY_SCOPES } from '@/lib/auth/scopes';
import { hashPassword, verifyPassword } from '@/lib/auth/passwords';
import { systemActor } from '@/lib/audit/record';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { changeMembership } from './members';
import { hdMnemonic } from './accounts';
import { createMerchant } from './service';

export const DEMO_EMAIL = 'demo@example.com';
/** The demo store's second member (issue 40): a finance user, to try roles with; it signs in with the same password as the owner. */
export const DEMO_FINANCE_EMAIL = 'finance@example.com';
// The demo payout wallet sits on an account index no real merchant id reaches.
const DEMO_WALLET_ACCOUNT = 2 ** 31 - 1;

export function demoPayoutWallet(): string {
  return deriveAccount(hdMnemonic(), DEMO_WALLET_ACCOUNT, 'invoice').address;
}

/**
 * Idempotent: creates the demo merchant once, makes sure `apiKey` is one of its
 * keys and, when given, that `dashboardPassword` signs its owner (DEMO_EMAIL) in to the dashboard,
 * and its second member, DEMO_FINANCE_EMAIL with the role finance, too (added once, through the
 * door of memberships).
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
  if (dashboardPassword) {
    const finance = await prisma.user.upsert({ where: { email: DEMO_FINANCE_EMAIL }, update: {}, create: { email: DEMO_FINANCE_EMAIL } });
    if (!(await verifyPassword(dashboardPassword, finance.passwordHash))) await prisma.user.update({ where: { id: finance.id }, data: { passwordHash: await hashPassword(dashboardPassword) } });
    const member = await prisma.membership.findUnique({ where: { userId_merchantId: { userId: finance.id, merchantId: merchant.id } } });
    if (!member) await changeMembership(prisma, merchant.id, { kind: 'added', userId: finance.id, role: 'finance' }, systemActor('npm run seed'));
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
