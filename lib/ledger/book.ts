import type { Currency, LedgerKind, Prisma, SendPurpose, Transaction } from '@/lib/generated/prisma/client';

/**
 * The ledger: every movement of value at a service address is a row
 * (ledger_entries), written in the same DB transaction as the booking that
 * caused it. `delta_units` is the signed change of the address's balance, so
 * an address holds the sum of its deltas; FEE_KEPT and HELD are classifications
 * (delta 0) that say what part of a payment stays at its address and why.
 * `npm run reconcile` (lib/reconcile/reconcile.ts) proves the books against each
 * other and against the chain.
 */
type Tx = Prisma.TransactionClient;
/** What a payment's bookings need of it. */
type PaymentRef = Pick<Transaction, 'id' | 'toAddress' | 'currency' | 'invoiceId'>;

const OUT_KIND: Record<SendPurpose, LedgerKind> = {
  FORWARD: 'FORWARD',
  REFUND: 'REFUND',
  FORWARD_GAS: 'GAS_OUT',
  REFUND_GAS: 'GAS_OUT',
  PAYOUT_TARGET: 'PAYOUT',
  PAYOUT_GAS: 'GAS_OUT',
  GAS_RETURN: 'GAS_RETURN_OUT',
  PAYOUT_RETURN: 'PAYOUT_RETURN',
  PAYOUT_RETURN_TRX: 'PAYOUT_RETURN',
  PAYOUT_RETURN_GAS: 'GAS_OUT',
  // Pool operations move stake, not TRX (amount_units 0): only their fee is booked, and a stake's TRX (STAKE).
  FORWARD_ENERGY: 'NETWORK_COST',
  REFUND_ENERGY: 'NETWORK_COST',
  FORWARD_BANDWIDTH: 'NETWORK_COST',
  REFUND_BANDWIDTH: 'NETWORK_COST',
  PAYOUT_ENERGY: 'NETWORK_COST',
  PAYOUT_RETURN_ENERGY: 'NETWORK_COST',
  PAYOUT_BANDWIDTH: 'NETWORK_COST',
  ENERGY_RECLAIM: 'NETWORK_COST',
  POOL_STAKE: 'STAKE',
};
const GAS: readonly SendPurpose[] = ['FORWARD_GAS', 'REFUND_GAS', 'PAYOUT_GAS', 'PAYOUT_RETURN_GAS'];

interface Entry {
  address: string;
  currency: Currency;
  kind: LedgerKind;
  deltaUnits: bigint;
  units: bigint;
  invoiceId?: number | null;
  paymentId?: number | null;
  transactionId: number;
  reason?: string | null;
}

async function write(tx: Tx, entries: Entry[]): Promise<void> {
  // Unique per moving transaction, kind and address: a retried booking writes nothing twice.
  if (entries.length) await tx.ledgerEntry.createMany({ data: entries, skipDuplicates: true });
}

/** Incoming transfers the scanner recorded (payments, payout top-ups, merchants' wallet top-ups) at service addresses. */
export async function bookIncoming(tx: Tx, rows: Pick<Transaction, 'id' | 'toAddress' | 'currency' | 'amountUnits' | 'invoiceId'>[]): Promise<void> {
  await write(tx, rows.map((r) => ({ address: r.toAddress, currency: r.currency, kind: 'PAYMENT_IN', deltaUnits: r.amountUnits, units: r.amountUnits, invoiceId: r.invoiceId, paymentId: r.id, transactionId: r.id })));
}

/**
 * A send of ours that is in a solidified block. Succeeded: the amount left its
 * address and (when the recipient is a service address: gas, or our own send
 * landing on another invoice's address) arrived at another. Either way the
 * network burned `feeSun` at the sender, also when the call failed.
 */
export async function bookSendLanded(tx: Tx, row: Transaction, feeSun: bigint, succeeded: boolean, landed: { error?: string; withdrawnSun?: bigint } = {}): Promise<void> {
  const { error, withdrawnSun = 0n } = landed;
  const purpose = row.sendPurpose;
  if (!purpose) throw new Error(`send ${row.id} has no purpose`);
  const base = { invoiceId: row.invoiceId, paymentId: row.sourceId, transactionId: row.id };
  const entries: Entry[] = [];
  // A gas return's fee is paid out of the gas remainder it returns, not by the payment it is anchored on
  // (which may be a TRX payment at the same address): it is no part of that payment's accounting.
  const payer = purpose === 'GAS_RETURN' ? { ...base, paymentId: null } : base;
  if (feeSun > 0n) entries.push({ ...payer, address: row.fromAddress, currency: 'TRX', kind: 'NETWORK_COST', deltaUnits: -feeSun, units: feeSun, reason: succeeded ? null : (error ?? 'failed on chain') });
  if (succeeded && row.type === 'STAKE') {
    // The pool's TRX leaves its balance for its stake (reconcile proves the stake on chain); an unstake
    // moves stake to unstaking, still no TRX of the balance, until it is withdrawn.
    const staked = row.stakeSun ?? 0n;
    entries.push({ ...base, address: row.fromAddress, currency: 'TRX', kind: 'STAKE', deltaUnits: -staked, units: staked });
  }
  if (succeeded && withdrawnSun > 0n) {
    // Unstaked TRX whose 14 days are over, back in the balance: by a WITHDRAW, or by an UNSTAKE,
    // which java-tron makes pay out what already expired first (the receipt's withdraw_expire_amount).
    entries.push({ ...base, address: row.fromAddress, currency: 'TRX', kind: 'UNSTAKE', deltaUnits: withdrawnSun, units: withdrawnSun });
  }
  if (row.type !== 'STAKE' && succeeded && row.amountUnits > 0n) {
    entries.push({ ...base, address: row.fromAddress, currency: row.currency, kind: OUT_KIND[purpose], deltaUnits: -row.amountUnits, units: row.amountUnits });
    // Gas arrives at a service address; any other send of ours that lands on an invoice address
    // is recorded by the scanner as a payment to that invoice (PAYMENT_IN), like a customer's.
    if (GAS.includes(purpose)) {
      entries.push({ address: row.toAddress, currency: row.currency, kind: 'GAS_IN', deltaUnits: row.amountUnits, units: row.amountUnits, invoiceId: row.invoiceId, paymentId: row.sourceId, transactionId: row.id });
    }
    // A single-use address's gas remainder arrives back at the gas wallet (docs/worker.md, "Gas returned").
    if (purpose === 'GAS_RETURN') {
      entries.push({ address: row.toAddress, currency: row.currency, kind: 'GAS_RETURN_IN', deltaUnits: row.amountUnits, units: row.amountUnits, invoiceId: row.invoiceId, paymentId: row.sourceId, transactionId: row.id });
    }
  }
  await write(tx, entries);
}

/** The part of a payment the service keeps at its address (service fee; a USDT refund's network cost). */
export async function bookKept(tx: Tx, payment: PaymentRef, units: bigint, reason: string): Promise<void> {
  if (units <= 0n) return;
  await write(tx, [{ address: payment.toAddress, currency: payment.currency, kind: 'FEE_KEPT', deltaUnits: 0n, units, invoiceId: payment.invoiceId, paymentId: payment.id, transactionId: payment.id, reason }]);
}

/** The part of a payment held at its address, with why. */
export async function bookHeld(tx: Tx, payment: PaymentRef, units: bigint, reason: string): Promise<void> {
  if (units <= 0n) return;
  await write(tx, [{ address: payment.toAddress, currency: payment.currency, kind: 'HELD', deltaUnits: 0n, units, invoiceId: payment.invoiceId, paymentId: payment.id, transactionId: payment.id, reason }]);
}

/** Held funds leave the held bucket when released (the release's own send books the movement). */
export async function unbookHeld(tx: Tx, paymentId: number): Promise<void> {
  await tx.ledgerEntry.deleteMany({ where: { transactionId: paymentId, kind: 'HELD' } });
}

/** The ledger's name for a rental's spend: the provider account it left, per order (out_trade_no). */
export const rentalLedgerAddress = (outTradeNo: string) => `rental:${outTradeNo}`;

/**
 * An energy rental the provider accepted (docs/energy.md, "Rented energy"): its price left the
 * provider account (prepaid, off chain), booked on the payment whose send it is for. reconcile
 * proves these rows against energy_rentals and the provider's own account summary.
 */
export async function bookRental(tx: Tx, payment: Pick<Transaction, 'id' | 'invoiceId'>, rental: { outTradeNo: string; serial: string; priceSun: bigint; energyAmount: bigint }): Promise<void> {
  if (rental.priceSun <= 0n) return;
  await write(tx, [
    {
      address: rentalLedgerAddress(rental.outTradeNo),
      currency: 'TRX',
      kind: 'ENERGY_RENTAL',
      deltaUnits: -rental.priceSun,
      units: rental.priceSun,
      invoiceId: payment.invoiceId,
      paymentId: payment.id,
      transactionId: payment.id,
      reason: `energy rental ${rental.serial}: ${rental.energyAmount} energy`,
    },
  ]);
}

/** What the energy of a send's attempt was rented for (sun): charged with the send as its network cost. */
export async function rentalPriceOf(tx: Tx, row: Pick<Transaction, 'sourceId' | 'sendPurpose' | 'sendAttempt'>): Promise<bigint> {
  if (row.sourceId === null || row.sendPurpose === null || row.sendAttempt === null) return 0n;
  const sum = await tx.energyRental.aggregate({ where: { paymentId: row.sourceId, purpose: row.sendPurpose, attempt: row.sendAttempt }, _sum: { priceSun: true } });
  return sum._sum.priceSun ?? 0n;
}
