import type { Prisma } from '@/lib/generated/prisma/client';
import type { RefundStatus } from '@/lib/refunds/schemas';
import { isoMicro } from '@/lib/time';

/*
 * Where a merchant's refund stands (docs/refunds.md), read from the refund and its payout. Here,
 * below the settlement engine, because the release rules of a held payment (lib/payments/operator.ts)
 * ask it too: a held payment committed to a refund still standing cannot be released another way.
 */

/** What a refund's status is read from: its payout, the payout's one target, and the transfer that paid it. */
export const refundStatusInclude = {
  payout: {
    select: {
      id: true,
      status: true,
      address: true,
      expiredAt: true,
      amounts: { select: { dueUnits: true, receivedUnits: true, feeUnits: true } },
      payoutTargets: { select: { state: true, error: true } },
      transactions: { where: { sendPurpose: 'PAYOUT_TARGET', sendState: 'CONFIRMED' }, select: { trnHash: true }, take: 1 },
    },
  },
} as const satisfies Prisma.RefundInclude;

export type RefundStatusRecord = Prisma.RefundGetPayload<{ include: typeof refundStatusInclude }>;

/**
 * Where a refund stands. Before its payout exists the refund's own state says it (waiting for the
 * customer's address, or canceled); from then on the payout does, read here rather than copied, so
 * the two can never disagree: its one target paid is SENT; being sent, or funded, SENDING; failed,
 * returned, or the payout timed out before it was funded (a payout's TIMEOUT is final: it never
 * sends afterwards) is FAILED; the payout canceled is CANCELED; else it waits for its funds.
 */
export function refundStatus(r: RefundStatusRecord): { status: RefundStatus; failureReason: string | null } {
  if (r.state === 'WAITING_ADDRESS') return { status: 'WAITING_ADDRESS', failureReason: null };
  const payout = r.payout;
  if (r.state === 'CANCELED' || !payout) return { status: 'CANCELED', failureReason: null };
  const target = payout.payoutTargets[0];
  const due = payout.amounts[0];
  if (target?.state === 'PAID') return { status: 'SENT', failureReason: null };
  if (payout.status === 'CANCELED') return { status: 'CANCELED', failureReason: null };
  if (target?.state === 'FAILED' || target?.state === 'RETURNED' || payout.status === 'ERROR') {
    return { status: 'FAILED', failureReason: target?.error ?? `The payout (#${payout.id}) that sends it failed.` };
  }
  if (payout.status === 'TIMEOUT') {
    return { status: 'FAILED', failureReason: `The top-up did not arrive before ${isoMicro(payout.expiredAt)}; what arrived can be returned from the payout (#${payout.id}).` };
  }
  if (target?.state === 'SENDING' || (due && due.receivedUnits >= due.dueUnits)) return { status: 'SENDING', failureReason: null };
  return { status: 'WAITING_FUNDS', failureReason: null };
}

/** Statuses whose amount is spent or still on its way: counted against what the invoice received; a held payment committed to one is not free. */
export const COMMITTED_STATUSES: readonly RefundStatus[] = ['WAITING_ADDRESS', 'WAITING_FUNDS', 'SENDING', 'SENT'];

/** Whether a refund still stands (waiting, sending or sent): its amount is taken, and the held money committed to it with it. */
export const refundStands = (r: RefundStatusRecord): boolean => COMMITTED_STATUSES.includes(refundStatus(r).status);
