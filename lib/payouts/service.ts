import type { AuditBy } from '@/lib/audit/record';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { parseOrThrow } from '@/lib/validation';
import { invoiceJson } from '@/lib/invoices/serialize';
import { refuseContractTargets, refuseFrozenTargets } from '@/lib/rules/receivers';
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

/**
 * Creates a payout (the API's spec 4.5 and the dashboard's form). A target that is a smart contract
 * is refused, naming its field (`target_wallets[i].address`): it can never be paid (issue 34); for
 * USDT so is one the USDT contract has frozen: what is sent there is lost to it (issue 37). The
 * estimate alone sends nothing and is answered as before.
 */
export async function createPayoutResponse(prisma: PrismaClient, merchant: Merchant, body: unknown, by: AuditBy) {
  const request = parseOrThrow(payoutRequestSchema, body);
  const deps = await apiQuoteDeps(prisma);
  const targets = Object.fromEntries(request.target_wallets.map((t, i) => [`target_wallets[${i}].address`, t.address]));
  await refuseContractTargets(deps.chain, targets);
  // USDT sent to a frozen address lands and can never be moved again (issue 37).
  if (request.currency === 'USDT') await refuseFrozenTargets(deps.chain, targets);
  const quote = await quotePayout(deps, request);
  return invoiceJson(await createPayout(prisma, merchant, quote, by));
}
