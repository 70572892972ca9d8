import type { PaymentState, Prisma, Transaction } from '@/lib/generated/prisma/client';
import { canMovePayment, CLOSED_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import { bookHeld, bookKept, unbookHeld } from '@/lib/ledger/book';
import { notifyHeld } from '@/lib/notify/held';
import { enqueueInvoiceWebhook } from '@/lib/invoices/webhook';
import { noteProgress } from '@/lib/worker/wake';

/**
 * Moves that account for money received, so only for a payment whose block is solidified: before
 * that it may still vanish in a reorganisation, and nothing is booked, held, reported or settled for
 * money that may never have arrived (issue 24). The sends of a payment not yet final are made, bound
 * to its block; their outcome is booked once the payment is.
 */
const NEEDS_FINAL: readonly PaymentState[] = CLOSED_PAYMENT_STATES;

/** A move the table forbids: a bug in the caller, never a race (races return false). */
export class IllegalPaymentMove extends Error {}

export type DoorPayment = Pick<Transaction, 'id' | 'type' | 'paymentState' | 'invoiceId' | 'eventId' | 'toAddress' | 'currency' | 'amountUnits' | 'solidified' | 'blockNumber'> & {
  invoice: { type: string } | null;
};

export interface PaymentMove {
  to: PaymentState;
  /** Columns written with the state (held_reason, error, fee_units, aml_check, the release's fields...). */
  data?: Prisma.TransactionUncheckedUpdateManyInput;
  /** A worker's move: only while this lease owner still holds the payment. */
  leaseOwner?: string;
  /** SETTLED: the service fee kept at the address; REFUNDED: the part of the payment the refund's network cost took. */
  keptUnits?: bigint;
  /** HELD and FAILED: why the funds stay at the address (the ledger's HELD row). */
  reason?: string;
}

const KEPT_REASON: Partial<Record<PaymentState, string>> = { SETTLED: 'service fee', REFUNDED: 'network cost of the refund' };
/** The per-payment webhook of a static (MULTIPLE) address: its outcome, once there is one. */
const REPORTED: readonly PaymentState[] = ['SETTLED', 'REFUNDED', 'FAILED', 'HELD'];

/**
 * The one door for payment states, in the caller's DB transaction:
 * - refuses a move the table does not allow (throws: a bug);
 * - refuses (returns false) while any send of the payment's own is in flight (signed or
 *   broadcast, its fate unknown): a payment is never held, failed, released or re-planned
 *   under a send that may still land (issue 22, case 3);
 * - moves only from the state the caller read, and for a worker only under its lease, so a
 *   race with another worker or a merchant's action cannot skip a rule (returns false);
 * - books the ledger of the move (HELD in and out, the fee or refund cost kept) and queues a
 *   static address's per-payment webhook, in the same transaction;
 * - flags a single-use (SINGLE) address's gas remainder for return once the payment is closed;
 * - closes (settles, holds, fails, refunds) only a payment whose block is solidified, and drops only
 *   one that is in no block (issue 24).
 */
export async function changePaymentState(tx: Prisma.TransactionClient, p: DoorPayment, move: PaymentMove): Promise<boolean> {
  const from = p.paymentState;
  if (from === null) throw new IllegalPaymentMove(`transaction ${p.id} has no payment state`);
  if (!canMovePayment(from, move.to)) throw new IllegalPaymentMove(`payment ${p.id}: ${from} -> ${move.to} is not a move the payment state machine allows`);
  if (NEEDS_FINAL.includes(move.to) && !p.solidified) throw new IllegalPaymentMove(`payment ${p.id}: ${from} -> ${move.to} before its block is solidified`);
  if (move.to === 'DROPPED' && (p.solidified || p.blockNumber !== null)) throw new IllegalPaymentMove(`payment ${p.id}: dropped while it is in a block`);
  const inFlight = await tx.transaction.count({ where: { sourceId: p.id, sendState: { in: ['SIGNED', 'BROADCAST'] } } });
  if (inFlight > 0) return false;
  const closing = (CLOSED_PAYMENT_STATES as readonly PaymentState[]).includes(move.to);
  const { count } = await tx.transaction.updateMany({
    // Dropped only while still in no block (a scanner may just have seen it again).
    where: { id: p.id, paymentState: from, ...(move.to === 'DROPPED' && { solidified: false, blockNumber: null }), ...(move.leaseOwner !== undefined && { leaseOwner: move.leaseOwner }) },
    data: { ...move.data, paymentState: move.to, ...(closing && p.type === 'PAYMENT' && p.invoice?.type === 'SINGLE' && { gasReturnDue: true }) },
  });
  if (count !== 1) return false;
  // A worker's other jobs may wait for this (a gas return, a webhook): woken after this step (lib/worker/wake.ts).
  noteProgress();
  if (p.type !== 'PAYMENT') return true;
  if (from === 'HELD' || from === 'FAILED') await unbookHeld(tx, p.id);
  if (move.to === 'HELD' || move.to === 'FAILED') await bookHeld(tx, p, p.amountUnits, move.reason ?? move.to.toLowerCase());
  if (move.to === 'HELD') await notifyHeld(tx, p, move.reason ?? 'held');
  const keptReason = KEPT_REASON[move.to];
  if (keptReason && move.keptUnits) await bookKept(tx, p, move.keptUnits, keptReason);
  if (p.invoice?.type === 'MULTIPLE' && p.invoiceId !== null && REPORTED.includes(move.to)) await enqueueInvoiceWebhook(tx, p.invoiceId, { paymentEventId: p.eventId });
  return true;
}
