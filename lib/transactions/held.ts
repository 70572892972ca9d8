import type { Currency, PrismaClient } from '@/lib/generated/prisma/client';

/** Held payments listed by name on the overview; the rest are counted. */
const LISTED = 5;

export interface HeldPayments {
  count: number;
  /** Per token, what is held in all. */
  totals: { currency: Currency; amountUnits: bigint }[];
  /** The oldest held payments first (they have waited longest), with their invoices to release them from. */
  listed: { invoiceId: number | null; currency: Currency; amountUnits: bigint; trnHash: string }[];
}

/**
 * The merchant's payments held at their addresses (HELD, docs/worker.md "Held funds"), for the
 * dashboard's overview notice: money the merchant has to forward or return is never silent
 * (issue 26). Derived from the payments themselves, so it is right the moment one is held or released.
 */
export async function heldPayments(prisma: PrismaClient, merchantId: number): Promise<HeldPayments> {
  const where = { merchantId, type: 'PAYMENT' as const, paymentState: 'HELD' as const };
  const [groups, listed] = await prisma.$transaction([
    prisma.transaction.groupBy({ by: ['currency'], where, _sum: { amountUnits: true }, _count: { _all: true }, orderBy: { currency: 'asc' } }),
    prisma.transaction.findMany({ where, orderBy: { id: 'asc' }, take: LISTED, select: { invoiceId: true, currency: true, amountUnits: true, trnHash: true } }),
  ]);
  return {
    count: groups.reduce((n, g) => n + (typeof g._count === 'object' ? (g._count._all ?? 0) : 0), 0),
    totals: groups.map((g) => ({ currency: g.currency, amountUnits: g._sum?.amountUnits ?? 0n })),
    listed,
  };
}
