import type { Chain } from '@/lib/chain/types';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { receiptReader } from './receipts';
import { proveInvoices, type ReconcileRules } from './reconcileInvoices';
import { proveMerchants } from './reconcileMerchants';
import { proveRentals } from './reconcileRentals';
import type { RentalClient } from '@/lib/energy/rental';
import { CLOSED_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import { balanceKey, finalBalances, movedWhileRead, readBooks, unbookedUpTo } from './unbooked';

export type { ReconcileRules };

const OUT_OF_PAYMENT = ['FORWARD', 'REFUND', 'NETWORK_COST', 'FEE_KEPT', 'HELD'] as const;

export interface Reconciliation {
  /** Human-readable; empty when the books balance. */
  mismatches: string[];
  paymentsChecked: number;
  paymentsInProgress: number;
  addressesChecked: number;
  invoicesChecked: number;
  payoutsChecked: number;
  merchantsChecked: number;
  /** Energy rentals the provider accepted, proven against the ledger (and the provider's account, when given). */
  rentalsChecked: number;
  /** Payouts still running with sends of theirs not booked yet: judged once they have ended. */
  payoutsInProgress: number;
  /** Our sends final on chain and not booked yet by the worker: counted from their receipts. */
  sendsFinalUnbooked: number;
  /** Transfers to service addresses in final blocks the scanner has not booked yet: counted from the blocks. */
  transfersUnread: number;
  /** Per currency, over every closed payment: received and where it went. */
  totals: Record<string, Record<string, bigint>>;
}

const fmt = (n: bigint) => n.toString();

interface Owed {
  heldUnits: bigint;
  heldPayments: number[];
  feesUnits: bigint;
}

/**
 * What must still be at each service address, per token (`address:currency`): the funds of every
 * payment held or failed there (its HELD row, removed when it leaves those states through the payment
 * door, as its funds are then moved by a booked send) and every fee kept (FEE_KEPT: fees are never
 * swept). The ledger's balance there can be right while these are gone: a send that burned them is
 * booked as its network cost, and the ledger then balances (issue 35, case 1: 13.03 TRX of a held
 * 20 TRX burned, "balanced"). So they are proven against the chain, not the ledger.
 */
async function owedAt(prisma: PrismaClient): Promise<Map<string, Owed>> {
  const rows = await prisma.ledgerEntry.findMany({ where: { kind: { in: ['HELD', 'FEE_KEPT'] } }, select: { address: true, currency: true, kind: true, units: true, paymentId: true } });
  const heldNow = new Set(
    (await prisma.transaction.findMany({ where: { id: { in: rows.filter((r) => r.kind === 'HELD' && r.paymentId !== null).map((r) => r.paymentId!) }, paymentState: { in: ['HELD', 'FAILED'] } }, select: { id: true } })).map((p) => p.id),
  );
  const owed = new Map<string, Owed>();
  for (const r of rows) {
    if (r.kind === 'HELD' && (r.paymentId === null || !heldNow.has(r.paymentId))) continue;
    const key = `${r.address}:${r.currency}`;
    const o = owed.get(key) ?? { heldUnits: 0n, heldPayments: [], feesUnits: 0n };
    if (r.kind === 'HELD') {
      o.heldUnits += r.units;
      o.heldPayments.push(r.paymentId!);
    } else o.feesUnits += r.units;
    owed.set(key, o);
  }
  return owed;
}

/** The gas wallet: the scanner books what arrives there from others (OTHER_IN) and what leaves it not by our sends (SWEEP). */
async function openingAddresses(prisma: PrismaClient): Promise<string[]> {
  return (await prisma.ledgerEntry.groupBy({ by: ['address'], where: { kind: { in: ['OTHER_IN', 'SWEEP'] } } })).map((r) => r.address);
}

/**
 * Proves the books (docs/worker.md, "The ledger"):
 * 1. per payment, and so per invoice and in total, to the base unit:
 *    received = forwarded + refunded + network costs it paid + fees kept + held
 *    (payments still being processed are counted, not judged);
 * 2. per service address and token: the balance on chain equals the sum of the
 *    ledger's movements there, and holds at least what is held there and the fees kept
 *    there (`owedAt`: proven, not only booked; issue 35);
 * 3. what was reported or owed, recomputed from payment rows, ledger rows and chain
 *    receipts with the engine's rules (`rules`): per payment the fee kept, per invoice
 *    `transfer_amounts`, `cost` and status, per payout each target paid exactly once
 *    (lib/reconcile/reconcileInvoices.ts); per merchant both balances from their ledger,
 *    each row from its cause (lib/reconcile/reconcileMerchants.ts).
 */
export async function reconcile(prisma: PrismaClient, chain: Chain, rules: ReconcileRules, rentalProvider?: RentalClient | null): Promise<Reconciliation> {
  const mismatches: string[] = [];
  const totals: Record<string, Record<string, bigint>> = {};
  const add = (currency: string, key: string, units: bigint) => {
    const t = (totals[currency] ??= {});
    t[key] = (t[key] ?? 0n) + units;
  };

  const payments = await prisma.transaction.findMany({
    // Seen before finality and not final yet: booked once final (issue 24); dropped after a reorganisation: never arrived.
    where: { type: 'PAYMENT', NOT: { paymentState: 'DROPPED' } },
    select: { id: true, invoiceId: true, toAddress: true, currency: true, amountUnits: true, paymentState: true, solidified: true },
    orderBy: { id: 'asc' },
  });
  const entries = await prisma.ledgerEntry.findMany({ where: { paymentId: { not: null }, kind: { in: [...OUT_OF_PAYMENT, 'PAYMENT_IN'] } } });
  const byPayment = new Map<number, typeof entries>();
  for (const e of entries) byPayment.set(e.paymentId!, [...(byPayment.get(e.paymentId!) ?? []), e]);

  let checked = 0;
  let inProgress = 0;
  for (const p of payments) {
    if (!p.solidified) {
      inProgress++;
      continue;
    }
    const mine = (byPayment.get(p.id) ?? []).filter((e) => e.currency === p.currency && e.address === p.toAddress);
    const sum = (kind: string) => mine.filter((e) => e.kind === kind).reduce((s, e) => s + e.units, 0n);
    const received = sum('PAYMENT_IN');
    if (received !== p.amountUnits) mismatches.push(`payment ${p.id} (invoice ${p.invoiceId}): ${fmt(p.amountUnits)} ${p.currency} arrived, the ledger has ${fmt(received)} in`);
    if (!(CLOSED_PAYMENT_STATES as readonly string[]).includes(p.paymentState ?? '')) {
      inProgress++;
      continue;
    }
    checked++;
    const parts = Object.fromEntries(OUT_OF_PAYMENT.map((k) => [k, sum(k)])) as Record<(typeof OUT_OF_PAYMENT)[number], bigint>;
    const accounted = Object.values(parts).reduce((s, v) => s + v, 0n);
    add(p.currency, 'received', p.amountUnits);
    for (const [k, v] of Object.entries(parts)) add(p.currency, k.toLowerCase(), v);
    if (accounted !== p.amountUnits) {
      const detail = Object.entries(parts).map(([k, v]) => `${k.toLowerCase()} ${fmt(v)}`).join(' + ');
      mismatches.push(`invoice ${p.invoiceId} payment ${p.id} (${p.paymentState}): received ${fmt(p.amountUnits)} ${p.currency} != ${detail} = ${fmt(accounted)} (${fmt(p.amountUnits - accounted)} unaccounted)`);
    }
  }
  for (const [currency, t] of Object.entries(totals)) {
    const accounted = OUT_OF_PAYMENT.reduce((s, k) => s + (t[k.toLowerCase()] ?? 0n), 0n);
    if (accounted !== (t.received ?? 0n)) mismatches.push(`total ${currency}: received ${fmt(t.received ?? 0n)} != accounted ${fmt(accounted)}`);
  }

  // The books at one instant, then each address's balances as of a final block, and what is final
  // there and not booked yet (lib/reconcile/unbooked.ts): a reconcile while the worker runs judges only
  // what is final, and counts what the worker has not reached yet from the chain itself.
  const books = await readBooks(prisma);
  // Merchants' top-up and activation wallets are checked even before their first top-up: a unit there is booked or reported.
  const wallets = await prisma.merchant.findMany({ select: { topupWalletAddress: true, activationWalletAddress: true } });
  const booked = [...books.balances.keys()].map((k) => k.slice(0, k.lastIndexOf(':')));
  // A rental's price left the provider account, off chain (`rental:<out_trade_no>`): proven by proveRentals below.
  const addresses = [...new Set([...booked.filter((a) => !a.startsWith('rental:')), ...wallets.flatMap((w) => [w.topupWalletAddress, w.activationWalletAddress])])];
  const final = new Map<string, Awaited<ReturnType<typeof finalBalances>>>();
  for (const address of addresses) final.set(address, await finalBalances(chain, address));
  const upTo = Math.max(0, ...[...final.values()].map((f) => f.to));
  // Incoming transfers the scanner books: to invoice addresses, merchants' wallets and the gas wallet (whose opening balance it booked).
  const invoiceAddresses = await prisma.invoice.findMany({ where: { address: { in: addresses } }, select: { address: true } });
  const scannerBooks = new Set([...invoiceAddresses.map((i) => i.address), ...wallets.flatMap((w) => [w.topupWalletAddress, w.activationWalletAddress]), ...(await openingAddresses(prisma))]);
  const unbooked = await unbookedUpTo(chain, prisma, books, upTo, scannerBooks);
  if (unbooked.tooFarBehind) mismatches.push(`addresses not checked: ${unbooked.tooFarBehind}`);
  const owed = await owedAt(prisma);
  for (const address of unbooked.tooFarBehind ? [] : addresses) {
    const { from, to: block, units: onChain } = final.get(address)!;
    if (movedWhileRead(unbooked.movements, address, from, block)) {
      mismatches.push(`address ${address}: not checked, it moved in a block made final while its balance was read (blocks ${from + 1}..${block}); run reconcile again`);
      continue;
    }
    for (const currency of ['TRX', 'USDT'] as const) {
      const notYet = unbooked.movements.filter((m) => m.address === address && m.currency === currency && m.block <= block).reduce((s, m) => s + m.deltaUnits, 0n);
      const expected = (books.balances.get(balanceKey(address, currency)) ?? 0n) + notYet;
      if (expected !== onChain[currency]) mismatches.push(`address ${address} ${currency}: chain holds ${fmt(onChain[currency])}, ledger says ${fmt(expected)} (${fmt(onChain[currency] - expected)} unbooked) as of final block ${block}${notYet ? `, ${fmt(notYet)} of it final and not booked yet` : ''}`);
      const due = owed.get(`${address}:${currency}`);
      if (due && onChain[currency] < due.heldUnits + due.feesUnits) {
        mismatches.push(
          `address ${address} ${currency}: chain holds ${fmt(onChain[currency])}, less than the ${fmt(due.heldUnits)} held there (payments ${due.heldPayments.join(', ') || 'none'}) and the ${fmt(due.feesUnits)} of fees kept: ${fmt(due.heldUnits + due.feesUnits - onChain[currency])} of them are not there`,
        );
      }
    }
  }
  // The energy pool's stake (docs/energy.md): what the ledger says left its balance for stake, against
  // the stake the chain shows (still with it, lent out, unstaking). Its own operations (an operator's
  // stake, the devnet's first stake) in flight: once in a block they have moved TRX into stake on chain
  // before the worker books them when final. The stake is read at the head, so their effect there is read
  // from the chain's receipt and counted, so a reconcile while the worker runs (`npm run dev` stakes at its
  // start) sees them as in progress. Which are in flight and what the ledger booked are read at the same
  // instant (`books`): read apart, a stake the worker booked in between was counted twice (a fresh clone's
  // embedded-default run, 2026-12-01: "chain holds 1600000000000 sun staked, ledger says 3200000000000").
  const stakeInFlight = new Map<string, bigint>();
  for (const op of books.unbookedSends.filter((r) => r.sendPurpose === 'POOL_STAKE')) {
    const status = await chain.getTransactionStatus(op.trnHash);
    if (status.status === 'unknown' || status.status === 'failed') continue;
    const landed = op.type === 'STAKE' ? (op.stakeSun ?? 0n) : 0n;
    // Expired unstaked TRX a withdrawal (or an unstake) returned to the balance, from the receipt.
    stakeInFlight.set(op.fromAddress, (stakeInFlight.get(op.fromAddress) ?? 0n) + landed - status.withdrawnSun);
  }
  for (const address of new Set([...books.stakeDeltas.keys(), ...stakeInFlight.keys()])) {
    const stake = await chain.getStake(address);
    const onChain = stake.frozenSun.ENERGY + stake.frozenSun.BANDWIDTH + stake.delegatedSun.ENERGY + stake.delegatedSun.BANDWIDTH + stake.unfreezingSun;
    const booked = -(books.stakeDeltas.get(address) ?? 0n) + (stakeInFlight.get(address) ?? 0n);
    if (booked !== onChain) mismatches.push(`address ${address} stake: chain holds ${fmt(onChain)} sun staked, ledger says ${fmt(booked)}`);
  }
  const receipt = receiptReader(chain);
  const invoices = await proveInvoices(prisma, chain, receipt, rules);
  const merchants = await proveMerchants(prisma, receipt, rules.topupFeePercent);
  const rentals = await proveRentals(prisma, rentalProvider);
  mismatches.push(...invoices.mismatches, ...merchants.mismatches, ...rentals.mismatches);
  return {
    mismatches,
    paymentsChecked: checked,
    paymentsInProgress: inProgress,
    addressesChecked: addresses.length,
    invoicesChecked: invoices.invoicesChecked,
    payoutsChecked: invoices.payoutsChecked,
    merchantsChecked: merchants.merchantsChecked,
    rentalsChecked: rentals.rentalsChecked,
    payoutsInProgress: new Set(books.unbookedSends.filter((r) => r.sendPurpose?.startsWith('PAYOUT')).map((r) => r.invoiceId)).size,
    sendsFinalUnbooked: unbooked.sendsFinal,
    transfersUnread: unbooked.transfersUnread,
    totals,
  };
}
