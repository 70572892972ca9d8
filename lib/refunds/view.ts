import { paymentPageBase } from '@/lib/config';
import type { Prisma } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import { refundClaimKey } from './claimKey';
import type { RefundJson, RefundStatus } from './schemas';

/** What a refund is read with: its payout, the payout's one target, and the transfer that paid it. */
export const refundInclude = {
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

export type RefundRecord = Prisma.RefundGetPayload<{ include: typeof refundInclude }>;

/**
 * Where a refund stands. Before its payout exists the refund's own state says it (waiting for the
 * customer's address, or canceled); from then on the payout does, read here rather than copied, so
 * the two can never disagree: its one target paid is SENT; being sent, or funded, SENDING; failed,
 * returned, or the payout timed out before it was funded (a payout's TIMEOUT is final: it never
 * sends afterwards) is FAILED; the payout canceled is CANCELED; else it waits for the merchant's
 * top-up.
 */
export function refundStatus(r: RefundRecord): { status: RefundStatus; failureReason: string | null } {
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

/** Statuses whose amount is spent or still on its way: counted against what the invoice received. */
export const COMMITTED_STATUSES: readonly RefundStatus[] = ['WAITING_ADDRESS', 'WAITING_FUNDS', 'SENDING', 'SENT'];

export function claimUrl(refundId: number): string {
  return `${paymentPageBase()}/payment/refund/${refundId}?k=${refundClaimKey(refundId)}`;
}

/** The Refund object of the API (docs/refunds.md). */
export function refundJson(r: RefundRecord): RefundJson {
  const { status, failureReason } = refundStatus(r);
  const due = r.payout?.amounts[0];
  const owed = due ? (status === 'WAITING_FUNDS' && due.dueUnits > due.receivedUnits ? due.dueUnits - due.receivedUnits : 0n) : null;
  return {
    id: r.id,
    invoice: r.invoiceId,
    status,
    failure_reason: failureReason,
    currency: r.currency,
    amount: tokenAmountJson(r.amountUnits),
    address: r.address,
    claim_url: r.claim ? claimUrl(r.id) : null,
    reason: r.reason,
    payout: r.payout?.id ?? null,
    topup_address: r.payout?.address ?? null,
    topup_amount: owed === null ? null : tokenAmountJson(owed),
    cost: due ? tokenAmountJson(due.feeUnits) : null,
    trn_hash: r.payout?.transactions[0]?.trnHash ?? null,
    created_at: isoMicro(r.createdAt),
  };
}
