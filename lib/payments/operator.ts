import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { chain } from '@/lib/chain';
import { isTronAddress } from '@/lib/chain/keys';
import type { Chain } from '@/lib/chain/types';
import type { Prisma, PrismaClient, Transaction } from '@/lib/generated/prisma/client';
import { refuseContractTargets, refuseFrozenTargets } from '@/lib/rules/receivers';
import { type AppError, fieldErrors, invalidInput, notFound } from '@/lib/errors';
import { HELD_PAYMENT_NOT_FOUND } from '@/lib/transactions/releases';
import { tokenAmountJson } from '@/lib/money/tokens';
import { changePaymentState, type PaymentMove } from './states';
import { queryRows, sql } from '@/lib/db/sql';
import { refundStands, refundStatusInclude, type RefundStatusRecord } from '@/lib/rules/refundStatus';

// An operator's or a merchant's action refused throws the domain's AppError (lib/errors.ts), whose code the
// HTTP edge maps to a status and `npm run payment:retry` prints the detail of (issue 35): not found is
// NOT_FOUND, a state the action cannot apply to or a send still in flight INVALID_INPUT, a bad address names it.

/**
 * `npm run payment:retry -- <id>`: an operator sends a FAILED payment round again, once
 * the cause is fixed (e.g. a target that reverted). It gets SEND_MAX_ATTEMPTS more sends
 * that may fail on chain; its funds leave the HELD bucket of the ledger as they move.
 *
 * A payment released into a merchant's refund (docs/refunds.md, "Funded from held money") goes to
 * that refund's payout only while the refund stands: once its payout is canceled or timed out,
 * nothing waits at that address for it, and sending it there would strand the money on a payout
 * that never pays out. It is held again instead, free of the refund, for the merchant to release
 * or to fund another refund (and told, as every hold is).
 */
export async function retryFailedPayment(prisma: PrismaClient, id: number): Promise<Transaction> {
  return prisma.$transaction(async (tx) => {
    const p = await tx.transaction.findUnique({ where: { id }, include: { invoice: { select: { type: true } }, fundsRefund: { include: refundStatusInclude } } });
    if (!p || p.type !== 'PAYMENT') throw notFound(`payment ${id} not found`);
    if (p.paymentState !== 'FAILED') throw invalidInput(`payment ${id} is ${p.paymentState}, not FAILED`);
    const moved = await changePaymentState(tx, p, retryMove(p));
    if (!moved) throw await refusal(tx, id, `payment ${id} changed meanwhile`);
    return tx.transaction.findUniqueOrThrow({ where: { id } });
  });
}

/** Where an operator's retry moves a FAILED payment, and what it writes with it (above). */
function retryMove(p: Transaction & { fundsRefund: RefundStatusRecord | null }): PaymentMove {
  const retried = { operatorRetries: { increment: 1 }, error: null, leaseOwner: null, leaseUntil: null };
  if (p.fundsRefund && !refundStands(p.fundsRefund)) {
    // Why it was held first (a canceled invoice's late payment...) stays its reason; the ledger row says why it is held again.
    const reason = `refund #${p.fundsRefund.id} it was released into no longer stands: release it again`;
    return { to: 'HELD', reason, data: { ...retried, heldReason: p.heldReason ?? reason, refundId: null, refundCostUnits: null, releaseAction: null, releaseAddress: null } };
  }
  const refunding = p.releaseAction === 'REFUND' || (p.amlCheck !== null && (p.amlCheck as { status?: string }).status === 'FAILED');
  return { to: refunding ? 'REFUNDING' : 'FORWARDING', data: retried };
}

/** Why the door refused: a send of the payment's own still in flight, or the state changed meanwhile. */
async function refusal(tx: Prisma.TransactionClient, id: number, message: string): Promise<AppError> {
  const inFlight = await tx.transaction.count({ where: { sourceId: id, sendState: { in: ['SIGNED', 'BROADCAST'] } } });
  return invalidInput(inFlight > 0 ? 'A send of this payment is still in flight; try again once it has landed or expired.' : message);
}

export type Release = { action: 'FORWARD' } | { action: 'REFUND'; address: string };

/**
 * A merchant releases HELD funds (dashboard): forwarded to their target wallet as they
 * are (the hold rules are not applied again; the network cost is taken as for any
 * forward; screened first when the merchant has AML on and they never were), or returned
 * to an address they name (its network cost taken out of it).
 */
export async function releaseHeldPayment(prisma: PrismaClient, merchantId: number, id: number, release: Release, by: AuditBy, node: () => Chain = chain): Promise<Transaction> {
  if (release.action === 'REFUND' && !isTronAddress(release.address)) {
    throw fieldErrors({ address: ['Enter a valid Tron address (T...).'] });
  }
  if (release.action === 'REFUND') {
    // Returned to a smart contract, TRX is refused for good and USDT lost (issue 34): `address` is named, or 503 if the node cannot tell.
    await refuseContractTargets(node(), { address: release.address });
    // USDT returned to an address Tether froze lands there and can never be moved again (issue 37): named, as a payout's target is.
    // (Frozen after this check, the worker holds the payment again before sending: lib/payments/refund.ts.)
    const held = await prisma.transaction.findFirst({ where: { id, merchantId, type: 'PAYMENT' }, select: { currency: true } });
    if (held?.currency === 'USDT') await refuseFrozenTargets(node(), { address: release.address });
  }
  return prisma.$transaction(async (tx) => {
    // Locked first: a refund committing this payment (lib/refunds/held.ts) and this release are one after the other.
    await queryRows(tx, sql`SELECT id FROM transactions WHERE id = ${id} FOR UPDATE`);
    const p = await tx.transaction.findFirst({ where: { id, merchantId, type: 'PAYMENT' }, include: { invoice: { select: { type: true } }, merchant: { select: { amlCheck: true } }, fundsRefund: { include: refundStatusInclude } } });
    if (!p || p.paymentState !== 'HELD') throw invalidInput('Only held funds can be released.');
    // Committed to fund a merchant's refund still standing (docs/refunds.md "Funded from held money"): it goes to that refund, never also elsewhere.
    if (p.fundsRefund && refundStands(p.fundsRefund)) {
      throw invalidInput(`This payment funds refund #${p.fundsRefund.id} of invoice #${p.fundsRefund.invoiceId}; cancel that refund to release it another way.`);
    }
    // Funds held before screening (dust, a canceled invoice, a token not accepted) are screened
    // before they are forwarded when the merchant has AML on: a flagged sender's money is then
    // returned (or held) by the AML rules, never forwarded unseen (issue 13).
    const screened = (p.amlCheck as { completed?: boolean } | null)?.completed === true;
    const forwardState = p.merchant?.amlCheck && !screened ? 'AML_PENDING' : 'FORWARDING';
    const moved = await changePaymentState(tx, p, {
      to: release.action === 'FORWARD' ? forwardState : 'REFUNDING',
      data: {
        releaseAction: release.action,
        releaseAddress: release.action === 'REFUND' ? release.address : null,
        // A refund it was committed to no longer stands (canceled, failed): it is free, and no longer counted as the refund's.
        refundId: null,
        refundCostUnits: null,
        retries: 0,
        error: null,
        leaseOwner: null,
        leaseUntil: null,
      },
    });
    if (!moved) throw await refusal(tx, id, 'Only held funds can be released.');
    // In the release's transaction: who let held money go, and to where (the target wallet, or the address named).
    await recordAudit(tx, by, { merchantId, action: 'held_released', subject: p.trnHash ?? p.id, before: { state: 'HELD', currency: p.currency, amount: p.amountUnits === null ? null : tokenAmountJson(p.amountUnits) }, after: release.action === 'REFUND' ? { action: 'REFUND', address: release.address } : { action: 'FORWARD' } });
    return tx.transaction.findUniqueOrThrow({ where: { id } });
  });
}

/**
 * The dashboard and the API name a payment by its hash: the held payment of this merchant with it,
 * else its payment by that hash, refused as not held (a second release says so, not "not found").
 */
export async function releaseHeldByHash(prisma: PrismaClient, merchantId: number, trnHash: string, release: Release, by: AuditBy): Promise<Transaction> {
  const where = { merchantId, trnHash, type: 'PAYMENT' as const };
  const p = (await prisma.transaction.findFirst({ where: { ...where, paymentState: 'HELD' }, select: { id: true } })) ?? (await prisma.transaction.findFirst({ where, select: { id: true } }));
  if (!p) throw notFound(HELD_PAYMENT_NOT_FOUND);
  return releaseHeldPayment(prisma, merchantId, p.id, release, by);
}
