import type { Prisma, Refund, RefundState } from '@/lib/generated/prisma/client';

/**
 * A refund's own states (docs/refunds.md): it waits for its address (a claim link), then becomes
 * its payout, which carries it from there (lib/refunds/status.ts reads what the payout did); or it
 * is canceled before it had one. PAYOUT and CANCELED are final: a payout is canceled as a payout.
 */
const TRANSITIONS: Record<RefundState, readonly RefundState[]> = {
  WAITING_ADDRESS: ['PAYOUT', 'CANCELED'],
  PAYOUT: [],
  CANCELED: [],
};

export class RefundTransitionError extends Error {}

type Move = { to: 'PAYOUT'; address: string; payoutId: number } | { to: 'CANCELED' };

/**
 * The one door for `refunds.state`, as changeTargetState is for payout targets: refuses a move the
 * table does not allow (throws), and writes in the caller's transaction only if the refund is still
 * in the state it was read in (returns false when another request moved it first: a claim and a
 * cancel at once, two claims of one link).
 */
export async function changeRefundState(tx: Prisma.TransactionClient, refund: Pick<Refund, 'id' | 'state'>, move: Move): Promise<boolean> {
  if (!TRANSITIONS[refund.state].includes(move.to)) throw new RefundTransitionError(`refund ${refund.id}: ${refund.state} → ${move.to} is not allowed`);
  const { count } = await tx.refund.updateMany({
    where: { id: refund.id, state: refund.state },
    data: move.to === 'PAYOUT' ? { state: 'PAYOUT', address: move.address, payoutId: move.payoutId } : { state: 'CANCELED' },
  });
  return count === 1;
}
