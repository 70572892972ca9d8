import type { Chain } from '@/lib/chain/types';
import { config } from '@/lib/config';
import type { Currency, Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { invalidInput } from '@/lib/errors';
import { changePaymentState } from '@/lib/payments/states';
import { gasInUsdt, rateSource } from '@/lib/rates';
import { refundStands, refundStatusInclude } from '@/lib/rules/refundStatus';

/*
 * A refund funded from money the service still holds for its invoice (issue 36, docs/refunds.md
 * "Funded from held money"). A held payment of the invoice in the refund's token is committed to
 * the refund when it is made (`transactions.refund_id`), and released whole into the refund's payout
 * (the release REFUND every held payment has, to the payout's top-up address, its network cost
 * taken out of it) once the payout exists: at once when the merchant names the address, when the
 * customer enters it at a claim link. The payout engine then sends the customer exactly the amount,
 * as it does from any top-up; the merchant tops up only what the held money does not cover.
 */

/** A held payment that may fund a refund, with what its release into the payout is estimated to cost, in its token. */
export interface HeldFunds {
  id: number;
  trnHash: string;
  refundId: number | null;
  amountUnits: bigint;
  costUnits: bigint;
}

/**
 * What is held for the invoice in `currency` (HELD payments), and what of it a refund's release moved
 * or is moving (payments committed to a refund that left HELD): both are money the invoice received
 * that the merchant never had, so both may be refunded beside what was forwarded.
 */
export async function heldForInvoice(db: Prisma.TransactionClient | PrismaClient, invoiceId: number, currency: Currency): Promise<bigint> {
  const { _sum } = await db.transaction.aggregate({
    where: { invoiceId, currency, type: 'PAYMENT', OR: [{ paymentState: 'HELD' }, { refundId: { not: null }, paymentState: { not: 'HELD' } }] },
    _sum: { amountUnits: true },
  });
  return _sum.amountUnits ?? 0n;
}

/**
 * The invoice's held payments in `currency` free to fund a refund (oldest first): HELD, committed to
 * no refund still standing, and not at an address the USDT contract froze (nothing can leave it).
 */
async function freeHeld(db: Prisma.TransactionClient | PrismaClient, invoiceId: number, currency: Currency) {
  const rows = await db.transaction.findMany({
    where: { invoiceId, currency, type: 'PAYMENT', paymentState: 'HELD', NOT: { heldReason: { startsWith: 'frozen' } } },
    select: { id: true, trnHash: true, refundId: true, amountUnits: true, toAddress: true, fundsRefund: { include: refundStatusInclude } },
    orderBy: { id: 'asc' },
  });
  return rows.filter((r) => !r.fundsRefund || !refundStands(r.fundsRefund));
}

/**
 * What releasing a held payment to `to` costs, in its token, as the worker will take it out of the
 * payment (lib/payments/refund.ts): TRX, what the transfer burns (bandwidth, and the account's
 * creation for a new address); USDT, the gas of a burning send with GAS_MARGIN_PERCENT, at the
 * current rates (the dearest case: lent or rented energy costs less, and more then reaches the payout).
 */
async function releaseCostUnits(node: Chain, currency: Currency, from: string, to: string, amountUnits: bigint): Promise<bigint> {
  const cost = await node.estimateTransfer({ token: currency, from, to, amount: amountUnits });
  if (currency === 'TRX') return cost.totalFeeSun;
  return (await gasInUsdt(rateSource(), cost.energyFeeSun + cost.bandwidthFeeSun, config().GAS_MARGIN_PERCENT)).units;
}

/**
 * The free held payments that fund a refund whose payout needs `needUnits` (the amount and the
 * payout's cost), oldest first until what they bring (each less its release's cost) covers it; one
 * whose release would cost all it holds is left out. Released to `to`: the payout's address, or for
 * a claim link an address new to the network (the dearest case), estimated again once it is known.
 */
export async function heldToFund(db: PrismaClient, node: Chain, invoiceId: number, currency: Currency, to: () => string, need: () => Promise<bigint>): Promise<HeldFunds[]> {
  const free = await freeHeld(db, invoiceId, currency);
  // Nothing held (the usual case): nothing more is asked of the node.
  if (free.length === 0) return [];
  const [needUnits, address] = [await need(), to()];
  const chosen: HeldFunds[] = [];
  let brought = 0n;
  for (const p of free) {
    if (brought >= needUnits) break;
    const costUnits = await releaseCostUnits(node, currency, p.toAddress, address, p.amountUnits);
    if (costUnits >= p.amountUnits) continue;
    chosen.push({ id: p.id, trnHash: p.trnHash, refundId: p.refundId, amountUnits: p.amountUnits, costUnits });
    brought += p.amountUnits - costUnits;
  }
  return chosen;
}

/** The same held payments estimated again for the payout's own address, once it is known (a claim). */
export async function heldCommittedTo(db: PrismaClient, node: Chain, refundId: number, to: string): Promise<HeldFunds[]> {
  const rows = await db.transaction.findMany({ where: { refundId, type: 'PAYMENT', paymentState: 'HELD' }, select: { id: true, trnHash: true, refundId: true, amountUnits: true, toAddress: true, currency: true }, orderBy: { id: 'asc' } });
  return Promise.all(rows.map(async (p) => ({ id: p.id, trnHash: p.trnHash, refundId: p.refundId, amountUnits: p.amountUnits, costUnits: await releaseCostUnits(node, p.currency, p.toAddress, to, p.amountUnits) })));
}

const CHANGED = 'A held payment of this invoice was released or changed meanwhile; try again.';

/**
 * Commits the held payments to the refund, in the caller's transaction (the invoice's row locked),
 * each only if it is still as it was read: HELD, and committed to the same refund as then (none, or
 * one that no longer stands). With `payoutAddress`, each is released into the payout at once,
 * through the payment's door (HELD to REFUNDING, to that address, as a merchant's release REFUND):
 * the worker sends it there, its network cost taken out of it, stored before broadcast. Without it
 * (a claim link) the payments stay HELD, kept for the refund, until the customer's address is known.
 */
export async function commitHeld(tx: Prisma.TransactionClient, refundId: number, held: HeldFunds[], payoutAddress: string | null): Promise<void> {
  for (const h of held) {
    if (payoutAddress === null) {
      const { count } = await tx.transaction.updateMany({ where: { id: h.id, paymentState: 'HELD', refundId: h.refundId }, data: { refundId, refundCostUnits: h.costUnits } });
      if (count !== 1) throw invalidInput(CHANGED);
      continue;
    }
    await releaseInto(tx, h, refundId, payoutAddress);
  }
}

/** One committed (or free, read as such) held payment released into the refund's payout through the payment's door. */
async function releaseInto(tx: Prisma.TransactionClient, h: HeldFunds, refundId: number, payoutAddress: string): Promise<void> {
  const p = await tx.transaction.findUniqueOrThrow({ where: { id: h.id }, include: { invoice: { select: { type: true } } } });
  if (p.paymentState !== 'HELD' || p.refundId !== h.refundId) throw invalidInput(CHANGED);
  const moved = await changePaymentState(tx, p, {
    to: 'REFUNDING',
    data: { refundId, refundCostUnits: h.costUnits, releaseAction: 'REFUND', releaseAddress: payoutAddress, retries: 0, error: null, leaseOwner: null, leaseUntil: null },
  });
  if (!moved) throw invalidInput(CHANGED);
}

/** A claim: the held payments kept for the refund are released into its payout, now that it exists (in the claim's transaction). */
export async function releaseCommitted(tx: Prisma.TransactionClient, refundId: number, held: HeldFunds[], payoutAddress: string): Promise<void> {
  for (const h of held) await releaseInto(tx, { ...h, refundId }, refundId, payoutAddress);
}

/** A canceled refund frees what was committed to it and still held (in the cancel's transaction, or just after it: a refund that no longer stands frees them anyway). */
export async function freeCommitted(db: Prisma.TransactionClient | PrismaClient, refundId: number): Promise<void> {
  await db.transaction.updateMany({ where: { refundId, paymentState: 'HELD' }, data: { refundId: null, refundCostUnits: null } });
}
