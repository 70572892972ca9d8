import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { enqueueRefundWebhook, type RefundEvent } from '@/lib/webhooks/outbox';
import { refundInclude, refundJson, refundStatus } from './view';

/** Queues `event` for the refund as it now stands in `tx` (its body is the Refund object as the API answers it). */
export async function tellRefund(tx: Prisma.TransactionClient, refundId: number, event: RefundEvent): Promise<void> {
  const refund = await tx.refund.findUniqueOrThrow({ where: { id: refundId }, include: refundInclude });
  await enqueueRefundWebhook(tx, refund, event, refundJson(refund));
}

/** How many refunds are looked at per round. */
const BATCH = 100;

/**
 * The worker tells each refund's outcome once (the `refund-outcomes` job): a refund's status is
 * read from its payout (lib/refunds/view.ts), which the payout engine moves, so the worker looks
 * at the refunds whose payout is out and untold, and for each that has ended writes the outcome it
 * told (`outcome_told`) and queues `refund.sent` or `refund.failed` in one transaction, guarded by
 * the outcome still being untold: two workers tell it once. A refund canceled with its payout is
 * recorded as told, with no event (the merchant canceled it). Returns how many it told.
 */
export async function tellRefundOutcomes(prisma: PrismaClient): Promise<number> {
  // Which first, then those with what they are read with: Prisma reads each relation of an include
  // even for no rows (`WHERE id IN (NULL)`), and this runs every idle round of every worker: seven
  // statements a round where one tells that nothing is out (issue 41, docs/testing.md).
  // The second read repeats the filter, so a refund another worker told in between is not read
  // again (its update below would change nothing either: it is guarded by `outcomeTold: null`).
  const untold = { state: 'PAYOUT', outcomeTold: null } as const;
  const ids = await prisma.refund.findMany({ where: untold, select: { id: true }, orderBy: { id: 'asc' }, take: BATCH });
  if (ids.length === 0) return 0;
  const open = await prisma.refund.findMany({ where: { ...untold, id: { in: ids.map((r) => r.id) } }, include: refundInclude, orderBy: { id: 'asc' } });
  let told = 0;
  for (const refund of open) {
    const { status } = refundStatus(refund);
    if (status !== 'SENT' && status !== 'FAILED' && status !== 'CANCELED') continue;
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.refund.updateMany({ where: { id: refund.id, outcomeTold: null }, data: { outcomeTold: status } });
      if (count === 1 && status !== 'CANCELED') await tellRefund(tx, refund.id, status === 'SENT' ? 'refund.sent' : 'refund.failed');
      told += count;
    });
  }
  return told;
}
