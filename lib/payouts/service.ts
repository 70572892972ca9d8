import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { parseOrThrow } from '@/lib/validation';
import { invoiceJson } from '@/lib/invoices/serialize';
import { apiQuoteDeps, createPayout, estimateJson } from './create';
import { quotePayout } from './estimate';
import { payoutRequestSchema } from './schemas';

/**
 * Spec 4.6 names /payment/create as the estimate's path: a body with no `type`
 * and a payout's `target_wallets` or `currency` (an invoice has `currencies`)
 * is an estimate request there, so a missing half is named as such.
 */
export function isPayoutEstimateBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !('type' in body) && ('target_wallets' in body || 'currency' in body);
}

export async function payoutEstimateResponse(prisma: PrismaClient, body: unknown) {
  return estimateJson(await quotePayout(await apiQuoteDeps(prisma), parseOrThrow(payoutRequestSchema, body)));
}

export async function createPayoutResponse(prisma: PrismaClient, merchant: Merchant, body: unknown) {
  const quote = await quotePayout(await apiQuoteDeps(prisma), parseOrThrow(payoutRequestSchema, body));
  return invoiceJson(await createPayout(prisma, merchant, quote));
}
