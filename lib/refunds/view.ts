import { paymentPageBase } from '@/lib/config';
import type { Prisma } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import { COMMITTED_STATUSES, refundStatus, refundStatusInclude } from '@/lib/rules/refundStatus';
import { refundClaimKey } from './claimKey';
import type { RefundJson } from './schemas';

/**
 * What a refund is read with: its payout (its status, lib/rules/refundStatus.ts), the payout's top-ups
 * and the transfer that paid the customer, and the held payments committed to fund it with their
 * release's send (docs/refunds.md, "Funded from held money").
 */
export const refundInclude = {
  payout: {
    select: {
      ...refundStatusInclude.payout.select,
      transactions: {
        where: { OR: [{ sendPurpose: 'PAYOUT_TARGET', sendState: 'CONFIRMED' }, { type: 'TOPUP' }] },
        select: { trnHash: true, type: true, sendPurpose: true, currency: true, amountUnits: true },
        orderBy: { id: 'asc' },
      },
    },
  },
  heldFunds: {
    select: {
      trnHash: true,
      amountUnits: true,
      paymentState: true,
      refundCostUnits: true,
      // The release's latest send not known to have failed: what it carries is what reaches the payout.
      sends: { where: { sendPurpose: 'REFUND', sendState: { in: ['SIGNED', 'BROADCAST', 'CONFIRMED'] } }, select: { trnHash: true, amountUnits: true }, orderBy: { id: 'desc' }, take: 1 },
    },
    orderBy: { id: 'asc' },
  },
} as const satisfies Prisma.RefundInclude;

export type RefundRecord = Prisma.RefundGetPayload<{ include: typeof refundInclude }>;

export { refundStatus, COMMITTED_STATUSES };

/** The transfer that paid the customer, once confirmed. */
export const refundTrnHash = (r: RefundRecord): string | null => r.payout?.transactions.find((t) => t.sendPurpose === 'PAYOUT_TARGET')?.trnHash ?? null;

/**
 * What the held payments committed to a refund bring to its payout (docs/refunds.md, "Funded from
 * held money"): each is released whole into the payout's address, its release's network cost taken
 * out of it. Per payment, what it carries (its release's send once built, else the payment less the
 * cost estimated when committed), whether that has reached the payout (a top-up the scanner
 * recorded), and the cost. A payment held again after its release was refused, or failed, brings
 * nothing: the merchant tops up the whole then.
 */
export function heldFunding(r: RefundRecord): { payments: string[]; amountUnits: bigint; costUnits: bigint; pendingUnits: bigint } | null {
  const arrived = new Set((r.payout?.transactions ?? []).filter((t) => t.type === 'TOPUP').map((t) => t.trnHash));
  let amountUnits = 0n;
  let costUnits = 0n;
  let pendingUnits = 0n;
  const payments: string[] = [];
  for (const p of r.heldFunds) {
    const send = p.sends[0];
    const coming = send !== undefined || p.paymentState === 'REFUNDING' || p.paymentState === 'REFUNDED' || (p.paymentState === 'HELD' && r.state === 'WAITING_ADDRESS');
    if (!coming) continue;
    const estimated = p.amountUnits - (p.refundCostUnits ?? 0n);
    const carried = send ? send.amountUnits : estimated > 0n ? estimated : 0n;
    payments.push(p.trnHash);
    amountUnits += p.amountUnits;
    costUnits += p.amountUnits - carried;
    if (!send || !arrived.has(send.trnHash)) pendingUnits += carried;
  }
  return payments.length ? { payments, amountUnits, costUnits, pendingUnits } : null;
}

export function claimUrl(refundId: number): string {
  return `${paymentPageBase()}/payment/refund/${refundId}?k=${refundClaimKey(refundId)}`;
}

/** The Refund object of the API (docs/refunds.md). */
export function refundJson(r: RefundRecord): RefundJson {
  const { status, failureReason } = refundStatus(r);
  const due = r.payout?.amounts[0];
  const held = heldFunding(r);
  // What reached the payout: its top-ups as the scanner recorded them (the payout loop counts the same rows), or as booked.
  const toppedUp = (r.payout?.transactions ?? []).filter((t) => t.type === 'TOPUP' && t.currency === r.currency).reduce((sum, t) => sum + t.amountUnits, 0n);
  const received = due ? (due.receivedUnits > toppedUp ? due.receivedUnits : toppedUp) : 0n;
  // Still to send: the payout's need less what arrived and what the held money committed to it is bringing.
  const short = due ? due.dueUnits - received - (held?.pendingUnits ?? 0n) : 0n;
  const owed = due ? (status === 'WAITING_FUNDS' && short > 0n ? short : 0n) : null;
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
    // Both hops are the merchant's: the held money's release into the payout, then the payout's send.
    cost: due ? tokenAmountJson(due.feeUnits + (held?.costUnits ?? 0n)) : null,
    funded_from_held: held && { payments: held.payments, amount: tokenAmountJson(held.amountUnits), cost: tokenAmountJson(held.costUnits) },
    trn_hash: refundTrnHash(r),
    created_at: isoMicro(r.createdAt),
  };
}
