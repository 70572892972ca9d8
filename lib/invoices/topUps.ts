import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import type { Currency } from '@/lib/money/tokens';

/**
 * What the payout loop counts as a payout's top-up (docs/payouts.md): the
 * TOPUP rows the scanner recorded on confirmed blocks, in the payout's (single)
 * token. The loop (lib/payouts/run.ts) and the public top-up page
 * (lib/invoices/loadPublic.ts) both read them through this filter, so the page
 * can never count what the loop does not.
 */
export function topUpsWhere(invoiceId: number, currency: Currency): Prisma.TransactionWhereInput {
  return { invoiceId, type: 'TOPUP', currency };
}

/** The sum of a payout's confirmed top-ups, in base units. */
export async function confirmedTopUpUnits(prisma: Pick<PrismaClient, 'transaction'>, invoiceId: number, currency: Currency): Promise<bigint> {
  const { _sum } = await prisma.transaction.aggregate({ where: topUpsWhere(invoiceId, currency), _sum: { amountUnits: true } });
  return _sum.amountUnits ?? 0n;
}
