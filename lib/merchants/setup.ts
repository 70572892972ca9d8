import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';

export type SetupStepId = 'wallet' | 'key' | 'webhook' | 'profile' | 'payment';

export interface SetupStep {
  id: SetupStepId;
  done: boolean;
}

/**
 * A new merchant's first steps (issue 38: the store profile the payment page's contact block needs
 * was never prompted), each derived from what the account holds, so a step is ticked the moment it
 * is done anywhere (dashboard, API, CLI): a payout wallet, an API key in use or not revoked, a
 * default webhook URL, a store profile, and a first payment received (on the devnet, the payment
 * page's pay button makes one).
 */
export async function setupSteps(prisma: PrismaClient, merchant: Pick<Merchant, 'id' | 'targetWalletAddress' | 'webhookUrl' | 'storeName'>): Promise<SetupStep[]> {
  const [keys, payments] = await prisma.$transaction([
    prisma.apiKey.count({ where: { merchantId: merchant.id, revokedAt: null } }),
    prisma.transaction.count({ where: { merchantId: merchant.id, type: 'PAYMENT' }, take: 1 }),
  ]);
  return [
    { id: 'wallet', done: merchant.targetWalletAddress !== null },
    { id: 'key', done: keys > 0 },
    { id: 'webhook', done: merchant.webhookUrl !== null },
    { id: 'profile', done: merchant.storeName !== null },
    { id: 'payment', done: payments > 0 },
  ];
}
