import type { PrismaClient } from '@/lib/generated/prisma/client';
import { fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { PaymentActionError, releaseHeldByHash, type Release } from '@/lib/payments/operator';
import { getHeldPayment, HELD_PAYMENT_NOT_FOUND } from '@/lib/transactions/releases';
import type { HeldPaymentJson } from '@/lib/transactions/schemas';

/**
 * Releases a merchant's held payment by its hash, for the dashboard and the merchant API alike
 * (`POST /v1/api/held_payment/{trn_hash}/release`): the same rules (lib/payments/operator.ts), the
 * same answers. Unknown to this merchant: 404; known but not held now (never held, or released
 * already): 400 `Only held funds can be released.`; a bad address: 400 naming `address`; a send of
 * the payment still out or a state changed meanwhile: 400 saying so.
 */
export async function releaseHeld(prisma: PrismaClient, merchantId: number, trnHash: string, release: Release): Promise<HeldPaymentJson> {
  try {
    await releaseHeldByHash(prisma, merchantId, trnHash, release);
  } catch (err) {
    if (!(err instanceof PaymentActionError)) throw err;
    if (err.code === 'NOT_FOUND') throw notFound(HELD_PAYMENT_NOT_FOUND);
    throw err.code === 'BAD_ADDRESS' ? fieldErrors({ address: [err.message] }) : invalidInput(err.message);
  }
  return getHeldPayment(prisma, merchantId, trnHash);
}
