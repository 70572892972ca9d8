import type { AuditBy } from '@/lib/audit/record';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { releaseHeldByHash, type Release } from '@/lib/payments/operator';
import { getHeldPayment } from '@/lib/transactions/releases';
import type { HeldPaymentJson } from '@/lib/transactions/schemas';

/**
 * Releases a merchant's held payment by its hash, for the dashboard and the merchant API alike
 * (`POST /v1/api/held_payment/{trn_hash}/release`): the same rules (lib/payments/operator.ts), the
 * same answers. Unknown to this merchant: 404; known but not held now (never held, or released
 * already): 400 `Only held funds can be released.`; a bad address: 400 naming `address`; a send of
 * the payment still out or a state changed meanwhile: 400 saying so.
 */
export async function releaseHeld(prisma: PrismaClient, merchantId: number, trnHash: string, release: Release, by: AuditBy): Promise<HeldPaymentJson> {
  // Refusals are AppErrors (lib/payments/operator.ts), answered by the edge like any other.
  await releaseHeldByHash(prisma, merchantId, trnHash, release, by);
  return getHeldPayment(prisma, merchantId, trnHash);
}
