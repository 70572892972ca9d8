import type { InvoiceStatus, PayoutTargetState, Prisma } from '@/lib/generated/prisma/client';
import { noteProgress } from '@/lib/worker/wake';

/**
 * A payout target's states (docs/payouts.md, "Target states"). `SENDING` covers
 * every attempt of the target's send step: a send that died unsent is rebuilt
 * without leaving it. PAID and RETURNED are final.
 */
const TRANSITIONS: Record<PayoutTargetState, readonly PayoutTargetState[]> = {
  PENDING: ['SENDING', 'FAILED', 'RETURNED'],
  SENDING: ['PAID', 'FAILED'],
  PAID: [],
  FAILED: ['RETURNED'],
  RETURNED: [],
};

export function canMoveTarget(from: PayoutTargetState, to: PayoutTargetState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states a target's money is still at the payout address in (what a return sends back). */
export const UNPAID_TARGET_STATES: readonly PayoutTargetState[] = ['PENDING', 'FAILED'];

/** A payout that cannot finish, and so can be returned: it ended with targets unpaid, or timed out before it was funded. */
export const RETURNABLE: readonly InvoiceStatus[] = ['ERROR', 'TIMEOUT'];

/** Moves that end a target without paying it: only once its send's fate is known. */
const NEEDS_NO_SEND_IN_FLIGHT: readonly PayoutTargetState[] = ['FAILED', 'RETURNED'];

export class TargetTransitionError extends Error {}

/**
 * The one door for payout-target states, as changeInvoiceStatus is for
 * invoices. Refuses a move the table does not allow (throws), writes in the
 * caller's DB transaction only if the target is still in `from` (so a racing
 * worker cannot skip a rule: returns false then), and never marks a target
 * FAILED or RETURNED while a send to it is signed or broadcast: that send's fate
 * is not known yet, and it may still pay the target.
 */
export async function changeTargetState(
  tx: Prisma.TransactionClient,
  target: { invoiceId: number; index: number; state: PayoutTargetState },
  to: PayoutTargetState,
  options: { error?: string | null } = {},
): Promise<boolean> {
  if (target.state === to) return false;
  if (!canMoveTarget(target.state, to)) throw new TargetTransitionError(`payout ${target.invoiceId} target ${target.index}: ${target.state} → ${to} is not allowed`);
  if (NEEDS_NO_SEND_IN_FLIGHT.includes(to)) {
    const inFlight = await tx.transaction.count({
      where: { invoiceId: target.invoiceId, sendPurpose: 'PAYOUT_TARGET', sendIndex: target.index, sendState: { in: ['SIGNED', 'BROADCAST'] } },
    });
    if (inFlight > 0) throw new TargetTransitionError(`payout ${target.invoiceId} target ${target.index}: a send to it is in flight, it cannot become ${to}`);
  }
  const { count } = await tx.payoutTarget.updateMany({
    where: { invoiceId: target.invoiceId, index: target.index, state: target.state },
    data: { state: to, ...(options.error !== undefined ? { error: options.error } : {}) },
  });
  // A worker's other jobs may wait for this: woken after this step (lib/worker/wake.ts).
  if (count === 1) noteProgress();
  return count === 1;
}
