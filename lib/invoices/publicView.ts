import type { ChainProgress } from '@/lib/db/chainCursors';
import type { Invoice, InvoiceCurrency, InvoiceStatus, Merchant, Transaction } from '@/lib/generated/prisma/client';
import { formatScaled, parseScaled } from '@/lib/money/decimal';
import { percentAsFraction } from '@/lib/money/fees';
import { tokenAmountText, USD_DECIMALS, type Currency } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import { heldReasonCode, type HeldReason } from '@/lib/transactions/heldReason';
import { canTransition, INVOICE_STATUSES } from './states';

/**
 * What the hosted payment page (and its public status endpoint) may show a
 * customer. Built only from the fields listed here, so nothing else about the
 * merchant or its other invoices can leak: no e-mail, keys, webhook URL or
 * private key, and no payout's targets. Money is exact decimal text, never a float.
 */
export type PaymentPhase = 'waiting' | 'partial' | 'confirming' | 'completed' | 'overpaid' | 'underpaid' | 'expired' | 'canceled' | 'aml_failed' | 'error';
/**
 * A mass payout's page is where whoever funds it sends the top-up; the worker
 * then pays the targets from that address (docs/payouts.md).
 */
export type PayoutPhase = 'waiting' | 'partial' | 'confirming' | 'paying_out' | 'completed' | 'expired' | 'canceled' | 'error';

export interface PublicToken {
  currency: Currency;
  /** What the customer must send in this token (a payout: the top-up); null on a static address (any amount). */
  amount_due: string | null;
  /** Arrived so far in this token, unconfirmed transfers included. */
  received: string;
  /** What is left to pay in this token, counting what arrived in every token; null on a static address. */
  missing: string | null;
  /**
   * An overpaid invoice (OVERPAID): what arrived beyond the amount due, in this token, counting what
   * arrived in every token as `missing` does (issue 38: the page said "more than due" without how
   * much). Null in every other status.
   */
  extra: string | null;
  /**
   * When the customer pays the service fee (`client_commission`): the amount before the fee and
   * the fee, which add up to `amount_due` (issue 26: "Send exactly 25.25 USDT" with no fee line
   * was unclear). Null when the merchant pays the fee, and on static addresses and payouts.
   */
  amount_before_fee: string | null;
  service_fee: string | null;
}

/** Why a payment is held, as the customer may be told (lib/transactions/heldReason.ts). */
export type { HeldReason };

export interface PublicPayment {
  txid: string;
  currency: Currency;
  amount: string;
  /** `held`: kept at the address for the merchant to forward or return (HELD, docs/worker.md "Held funds"). */
  state: 'confirming' | 'received' | 'returned' | 'held';
  /** Only for `held`. */
  held_reason: HeldReason | null;
  created_at: string;
  /**
   * Only while `confirming` in a known block (issue 38): `blocks` built on it so far (its own
   * included) of the `needed` that make it final, by the chain's finality depth now (about 19
   * on mainnet). Never more than `needed`.
   */
  confirmations: { blocks: number; needed: number } | null;
  /** The transaction on the network's public block explorer (Tronscan); null where there is none (the devnet). */
  explorer_url: string | null;
}

/**
 * The merchant's profile (issue 26, migration 0064): who the customer is paying and how to reach
 * them where the page says "contact the merchant". Null when the merchant set none (the page keeps
 * its generic wording) and in the limited view.
 */
export interface PublicMerchant {
  store_name: string | null;
  support_email: string | null;
  support_url: string | null;
  logo_url: string | null;
}

interface PublicInvoiceFields {
  id: number;
  status: InvoiceStatus;
  /** True when no further status change can happen, so clients may stop polling. */
  final: boolean;
  /** A transfer is on the chain but not yet confirmed and booked. */
  confirming: boolean;
  amount_usd: string | null;
  description: string | null;
  order_id: string | null;
  address: string;
  tokens: PublicToken[];
  payments: PublicPayment[];
  expired_at: string;
  server_time: string;
  /** Only once the invoice is paid: the merchant may put a receipt token in it. */
  redirect_url: string | null;
  /** False when asked for without the paymentURL's key: the merchant's details are left out (limitedView). */
  full: boolean;
  merchant: PublicMerchant | null;
  /**
   * The optional e-mail for a receipt and a refund's claim link (issue 36): offered on a SINGLE
   * invoice's full view where SMTP is configured, with the address given so far; else null.
   */
  receipt_email: { address: string | null } | null;
}

export type PublicInvoice = PublicInvoiceFields & ({ type: 'SINGLE' | 'MULTIPLE'; phase: PaymentPhase } | { type: 'MULTIPLE_TRANSFER'; phase: PayoutPhase });

export type PublicInvoiceSource = Pick<Invoice, 'id' | 'type' | 'status' | 'amountUsd' | 'currencies' | 'orderId' | 'address' | 'redirectUrl' | 'description' | 'expiredAt'> &
  Partial<Pick<Invoice, 'clientCommission' | 'underpaymentTolerancePercent'>> & {
    amounts: (Pick<InvoiceCurrency, 'currency' | 'dueUnits' | 'receivedUnits'> & Partial<Pick<InvoiceCurrency, 'feeUnits'>>)[];
  };
export type PublicPaymentSource = Pick<Transaction, 'trnHash' | 'currency' | 'amountUnits' | 'paymentState' | 'createdAt'> & Partial<Pick<Transaction, 'heldReason' | 'blockNumber'>>;

export type PublicMerchantSource = Pick<Merchant, 'storeName' | 'supportEmail' | 'supportUrl' | 'logoUrl'>;

export interface PublicViewInput {
  invoice: PublicInvoiceSource;
  /** The invoice's merchant's profile columns only (never the whole row: e-mail, keys, webhook URL). */
  merchant?: PublicMerchantSource | null;
  /** The invoice's PAYMENT transactions, newest first (a static address's list may be cut to the latest). */
  payments: PublicPaymentSource[];
  /** A payout's top-ups in its (single) token recorded on confirmed blocks: what the payout loop counts. */
  toppedUp?: bigint;
  /** Head-state balances of the address, read only while no payment is booked; null when not read. */
  unconfirmed: Partial<Record<Currency, bigint>> | null;
  /** Read only while a payment is confirming; without it no payment says how far it is confirmed. */
  chain?: ChainProgress | null;
  /** The network's explorer address of a transaction, the txid appended (`NETWORKS[..].explorerTx`). */
  explorerTx?: string | null;
  /** Where the service sends e-mail (SMTP configured): the customer's address given so far, or null; left out where it sends none. */
  receiptEmail?: string | null;
  now: Date;
}

const STATUS_PHASE: Record<Exclude<InvoiceStatus, 'ACTIVE'>, PaymentPhase> = {
  COMPLETED: 'completed',
  OVERPAID: 'overpaid',
  UNDERPAID: 'underpaid',
  TIMEOUT: 'expired',
  CANCELED: 'canceled',
  AML_FAILED: 'aml_failed',
  ERROR: 'error',
};

const PAYOUT_STATUS_PHASE: Record<Exclude<InvoiceStatus, 'ACTIVE'>, PayoutPhase> = {
  COMPLETED: 'completed',
  TIMEOUT: 'expired',
  CANCELED: 'canceled',
  ERROR: 'error',
  // The payout loop never sets these; should one appear, "something went wrong" is safer than "paid".
  OVERPAID: 'error',
  UNDERPAID: 'error',
  AML_FAILED: 'error',
};

const returned = (p: PublicPaymentSource) => p.paymentState === 'REFUNDING' || p.paymentState === 'REFUNDED';
const held = (p: PublicPaymentSource) => p.paymentState === 'HELD';
const booked = (p: PublicPaymentSource) => p.paymentState === 'SETTLED' || p.paymentState === 'FAILED';
const max = (...values: bigint[]) => values.reduce((a, b) => (b > a ? b : a));

/**
 * A payment in block `block` is final once the newest final block reaches it: it has `head - block + 1` blocks
 * (its own included) and needs `head - solidified + 1`, the chain's finality depth now. Null when its block or
 * the chain's progress is unknown (seen at the head only, or before the worker has read the chain).
 */
function confirmationsOf(block: number | null, chain: ChainProgress | null): PublicPayment['confirmations'] {
  if (block === null || chain === null) return null;
  const head = Math.max(chain.head, chain.solidified, block);
  const needed = head - chain.solidified + 1;
  return { blocks: Math.min(head - block + 1, needed), needed };
}

function paymentState(p: PublicPaymentSource): PublicPayment['state'] {
  if (returned(p)) return 'returned';
  // A held payment is not "confirming": it waits for the merchant, perhaps for good (issue 26).
  if (held(p)) return 'held';
  return booked(p) ? 'received' : 'confirming';
}


/** Per token: the larger of what the worker booked and what the chain shows, so the page never lags either. */
function receivedByToken(input: PublicViewInput): Map<Currency, bigint> {
  const { invoice, payments, toppedUp = 0n, unconfirmed } = input;
  return new Map(
    invoice.currencies.map((currency) => {
      const bookedUnits = invoice.amounts.find((a) => a.currency === currency)?.receivedUnits ?? 0n;
      // A held payment does not pay the invoice until the merchant forwards it (and then it is booked).
      const detected = payments.filter((p) => p.currency === currency && !returned(p) && !held(p)).reduce((sum, p) => sum + p.amountUnits, 0n);
      const seen = unconfirmed?.[currency] ?? 0n;
      return [currency, max(bookedUnits, detected, toppedUp, seen)];
    }),
  );
}

/**
 * What is left in `token` once every token's receipts are converted at the
 * invoice's own due ratio (a customer may pay part in TRX and the rest in USDT).
 * Rounded so that the customer is never told to send less than is missing.
 */
function missingIn(token: Currency, due: Map<Currency, bigint>, received: Map<Currency, bigint>): bigint {
  const dueToken = due.get(token) ?? 0n;
  const covered = coveredIn(token, due, received);
  return covered >= dueToken ? 0n : dueToken - covered;
}

/** What arrived beyond the amount due, in `token`, converted as `missingIn` does (rounded down: never more than arrived). */
function extraIn(token: Currency, due: Map<Currency, bigint>, received: Map<Currency, bigint>): bigint {
  const dueToken = due.get(token) ?? 0n;
  const covered = coveredIn(token, due, received);
  return covered > dueToken ? covered - dueToken : 0n;
}

/** Every token's receipts in `token`, at the invoice's own due ratio. */
function coveredIn(token: Currency, due: Map<Currency, bigint>, received: Map<Currency, bigint>): bigint {
  const dueToken = due.get(token) ?? 0n;
  let covered = 0n;
  for (const [currency, got] of received) {
    const dueThere = due.get(currency) ?? 0n;
    if (dueThere > 0n) covered += currency === token ? got : (got * dueToken) / dueThere;
  }
  return covered;
}

/**
 * Whether what arrived is within the merchant's underpayment tolerance of the amount (issue 36):
 * the worker completes such an invoice (sharePaid, lib/rules/settlement.ts), so the page
 * stops asking for the rest and says it is confirming. Every token's receipts are converted to
 * the first token at the invoice's own ratio, as `missing` is.
 */
function withinMerchantTolerance(invoice: PublicInvoiceSource, due: Map<Currency, bigint>, received: Map<Currency, bigint>): boolean {
  const percent = invoice.underpaymentTolerancePercent?.toFixed() ?? '0';
  const token = invoice.currencies[0];
  if (invoice.type !== 'SINGLE' || percent === '0' || token === undefined) return false;
  const dueToken = due.get(token) ?? 0n;
  const SCALE = 10n ** 18n;
  return dueToken > 0n && coveredIn(token, due, received) * SCALE >= dueToken * (SCALE - percentAsFraction(percent, SCALE));
}

function invoicePhase(input: PublicViewInput, anyReceived: boolean, fullyPaid: boolean): PaymentPhase {
  const { invoice, now } = input;
  if (invoice.status !== 'ACTIVE') return STATUS_PHASE[invoice.status];
  if (invoice.type !== 'SINGLE') return 'waiting';
  if (fullyPaid) return 'confirming';
  // At 00:00 the page stops asking for money, partly paid or not, even before the worker has
  // closed the invoice (it waits for the chain's clock): the rest would arrive late (issue 26).
  if (invoice.expiredAt <= now) return 'expired';
  return anyReceived ? 'partial' : 'waiting';
}

function payoutPhase(input: PublicViewInput, anyReceived: boolean, fullyPaid: boolean): PayoutPhase {
  const { invoice, toppedUp = 0n, now } = input;
  if (invoice.status !== 'ACTIVE') return PAYOUT_STATUS_PHASE[invoice.status];
  const quote = invoice.amounts[0];
  // The payout loop starts sending once confirmed top-ups reach the quote, even past expired_at, and then finishes.
  if (quote && max(toppedUp, quote.receivedUnits) >= quote.dueUnits) return 'paying_out';
  if (fullyPaid) return 'confirming';
  // Short of the quote at expired_at, the loop closes it as TIMEOUT: asking for the rest now would waste it.
  if (invoice.expiredAt <= now) return 'expired';
  return anyReceived ? 'partial' : 'waiting';
}

/** Copies the four profile fields by name, so a whole merchant row passed in leaks nothing else. */
export function publicMerchant(m: PublicMerchantSource | null | undefined): PublicMerchant | null {
  if (!m || (!m.storeName && !m.supportEmail && !m.supportUrl && !m.logoUrl)) return null;
  return { store_name: m.storeName, support_email: m.supportEmail, support_url: m.supportUrl, logo_url: m.logoUrl };
}

export function publicInvoiceView(input: PublicViewInput): PublicInvoice {
  const { invoice, payments, now } = input;
  const payout = invoice.type === 'MULTIPLE_TRANSFER';
  // A static address takes any amount; an invoice and a payout's top-up ask for an exact one.
  const exact = invoice.type !== 'MULTIPLE';
  const due = new Map(invoice.amounts.map((a) => [a.currency, a.dueUnits] as const));
  // The fee is on top of the amount only when the customer pays it (amountDue, lib/money/fees.ts).
  const feeOnTop = invoice.type === 'SINGLE' && invoice.clientCommission === true;
  const fee = new Map(invoice.amounts.map((a) => [a.currency, a.feeUnits ?? 0n] as const));
  const received = receivedByToken(input);
  const tokens: PublicToken[] = invoice.currencies.map((currency) => {
    const dueUnits = due.get(currency) ?? 0n;
    const feeUnits = fee.get(currency) ?? 0n;
    const feeLine = feeOnTop && feeUnits > 0n;
    return {
      currency,
      amount_due: exact ? tokenAmountText(dueUnits) : null,
      received: tokenAmountText(received.get(currency) ?? 0n),
      missing: exact ? tokenAmountText(missingIn(currency, due, received)) : null,
      extra: exact && invoice.status === 'OVERPAID' ? tokenAmountText(extraIn(currency, due, received)) : null,
      amount_before_fee: feeLine ? tokenAmountText(dueUnits - feeUnits) : null,
      service_fee: feeLine ? tokenAmountText(feeUnits) : null,
    };
  });
  const anyReceived = [...received.values()].some((u) => u > 0n);
  const fullyPaid = exact && (tokens.every((t) => t.missing === '0') || withinMerchantTolerance(invoice, due, received));
  const kind = payout
    ? { type: 'MULTIPLE_TRANSFER' as const, phase: payoutPhase(input, anyReceived, fullyPaid) }
    : { type: invoice.type === 'SINGLE' ? ('SINGLE' as const) : ('MULTIPLE' as const), phase: invoicePhase(input, anyReceived, fullyPaid) };
  const unconfirmedSeen = Object.values(input.unconfirmed ?? {}).some((u) => u > 0n);
  return {
    id: invoice.id,
    ...kind,
    status: invoice.status,
    // The payout loop only ever moves an ACTIVE payout; an invoice can still move on after a late payment.
    final: payout ? invoice.status !== 'ACTIVE' : INVOICE_STATUSES.every((next) => !canTransition(invoice.status, next)),
    confirming: invoice.status === 'ACTIVE' && (unconfirmedSeen || payments.some((p) => paymentState(p) === 'confirming')),
    // A payout's USD amount is the total of its targets: theirs, and not what is to be sent.
    amount_usd: payout || invoice.amountUsd === null ? null : formatScaled(parseScaled(invoice.amountUsd.toFixed(), USD_DECIMALS), USD_DECIMALS),
    description: invoice.description,
    order_id: invoice.orderId,
    address: invoice.address,
    tokens,
    payments: payments.map((p) => ({
      txid: p.trnHash,
      currency: p.currency,
      amount: tokenAmountText(p.amountUnits),
      state: paymentState(p),
      held_reason: held(p) ? heldReasonCode(p.heldReason) : null,
      created_at: isoMicro(p.createdAt),
      confirmations: paymentState(p) === 'confirming' ? confirmationsOf(p.blockNumber ?? null, input.chain ?? null) : null,
      explorer_url: input.explorerTx ? `${input.explorerTx}${p.trnHash}` : null,
    })),
    expired_at: isoMicro(invoice.expiredAt),
    server_time: isoMicro(now),
    redirect_url: kind.phase === 'completed' || kind.phase === 'overpaid' ? invoice.redirectUrl : null,
    full: true,
    merchant: publicMerchant(input.merchant),
    receipt_email: input.receiptEmail !== undefined && invoice.type === 'SINGLE' ? { address: input.receiptEmail } : null,
  };
}

/**
 * What someone who has only the invoice id sees (no paymentURL key; ids are
 * sequential): what paying needs, and nothing of what the merchant wrote on the
 * invoice or what was paid into it. Address, amounts due, received and missing
 * stay: a customer handed a bare `/payment/<id>` can still pay it. The merchant's profile goes
 * too: ids are sequential, and walking them must not list which stores use the service.
 */
export function limitedView(view: PublicInvoice): PublicInvoice {
  return { ...view, amount_usd: null, description: null, order_id: null, payments: [], redirect_url: null, full: false, merchant: null, receipt_email: null };
}
