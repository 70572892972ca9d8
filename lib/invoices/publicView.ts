import type { Invoice, InvoiceCurrency, InvoiceStatus, Transaction } from '@/lib/generated/prisma/client';
import { formatScaled, parseScaled } from '@/lib/money/decimal';
import { TOKEN_DECIMALS, USD_DECIMALS, type Currency } from '@/lib/money/tokens';
import { isoMicro } from '@/lib/time';
import { canTransition, INVOICE_STATUSES } from './states';

/**
 * What the hosted payment page (and its public status endpoint) may show a
 * customer. Built only from the fields listed here, so nothing else about the
 * merchant or its other invoices can leak: no e-mail, keys, webhook URL or
 * private key. Money is exact decimal text, never a float.
 */
export type PaymentPhase = 'waiting' | 'partial' | 'confirming' | 'completed' | 'overpaid' | 'underpaid' | 'expired' | 'canceled' | 'aml_failed' | 'error';

export interface PublicToken {
  currency: Currency;
  /** What the customer must send in this token; null on a static address (any amount). */
  amount_due: string | null;
  /** Arrived so far in this token, unconfirmed transfers included. */
  received: string;
  /** What is left to pay in this token, counting what arrived in every token; null on a static address. */
  missing: string | null;
}

export interface PublicPayment {
  txid: string;
  currency: Currency;
  amount: string;
  state: 'confirming' | 'received' | 'returned';
  created_at: string;
}

export interface PublicInvoice {
  id: number;
  type: 'SINGLE' | 'MULTIPLE';
  status: InvoiceStatus;
  phase: PaymentPhase;
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
}

export type PublicInvoiceSource = Pick<Invoice, 'id' | 'type' | 'status' | 'amountUsd' | 'currencies' | 'orderId' | 'address' | 'redirectUrl' | 'description' | 'expiredAt'> & {
  amounts: Pick<InvoiceCurrency, 'currency' | 'dueUnits' | 'receivedUnits'>[];
};
export type PublicPaymentSource = Pick<Transaction, 'trnHash' | 'currency' | 'amountUnits' | 'paymentState' | 'createdAt'>;

export interface PublicViewInput {
  invoice: PublicInvoiceSource;
  /** The invoice's PAYMENT transactions, newest first (a static address's list may be cut to the latest). */
  payments: PublicPaymentSource[];
  /** Head-state balances of the address, read only while no payment is booked; null when not read. */
  unconfirmed: Partial<Record<Currency, bigint>> | null;
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

const units = (u: bigint) => formatScaled(u, TOKEN_DECIMALS);
const returned = (p: PublicPaymentSource) => p.paymentState === 'REFUNDING' || p.paymentState === 'REFUNDED';
const booked = (p: PublicPaymentSource) => p.paymentState === 'SETTLED' || p.paymentState === 'FAILED';

function paymentState(p: PublicPaymentSource): PublicPayment['state'] {
  if (returned(p)) return 'returned';
  return booked(p) ? 'received' : 'confirming';
}

/** Per token: the larger of what the worker booked and what the chain shows, so the page never lags either. */
function receivedByToken(input: PublicViewInput): Map<Currency, bigint> {
  const { invoice, payments, unconfirmed } = input;
  return new Map(
    invoice.currencies.map((currency) => {
      const bookedUnits = invoice.amounts.find((a) => a.currency === currency)?.receivedUnits ?? 0n;
      const detected = payments.filter((p) => p.currency === currency && !returned(p)).reduce((sum, p) => sum + p.amountUnits, 0n);
      const seen = unconfirmed?.[currency] ?? 0n;
      const max = [bookedUnits, detected, seen].reduce((a, b) => (b > a ? b : a));
      return [currency, max];
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
  let covered = 0n;
  for (const [currency, got] of received) {
    const dueThere = due.get(currency) ?? 0n;
    if (dueThere > 0n) covered += currency === token ? got : (got * dueToken) / dueThere;
  }
  return covered >= dueToken ? 0n : dueToken - covered;
}

function activePhase(input: PublicViewInput, anyReceived: boolean, fullyPaid: boolean): PaymentPhase {
  if (input.invoice.type !== 'SINGLE') return 'waiting';
  if (!anyReceived) return input.invoice.expiredAt <= input.now ? 'expired' : 'waiting';
  return fullyPaid ? 'confirming' : 'partial';
}

export function publicInvoiceView(input: PublicViewInput): PublicInvoice {
  const { invoice, payments, now } = input;
  const single = invoice.type === 'SINGLE';
  const due = new Map(invoice.amounts.map((a) => [a.currency, a.dueUnits] as const));
  const received = receivedByToken(input);
  const tokens: PublicToken[] = invoice.currencies.map((currency) => ({
    currency,
    amount_due: single ? units(due.get(currency) ?? 0n) : null,
    received: units(received.get(currency) ?? 0n),
    missing: single ? units(missingIn(currency, due, received)) : null,
  }));
  const anyReceived = [...received.values()].some((u) => u > 0n);
  const fullyPaid = single && tokens.every((t) => t.missing === '0');
  const phase = invoice.status === 'ACTIVE' ? activePhase(input, anyReceived, fullyPaid) : STATUS_PHASE[invoice.status];
  const unconfirmedSeen = Object.values(input.unconfirmed ?? {}).some((u) => u > 0n);
  return {
    id: invoice.id,
    type: single ? 'SINGLE' : 'MULTIPLE',
    status: invoice.status,
    phase,
    final: INVOICE_STATUSES.every((next) => !canTransition(invoice.status, next)),
    confirming: invoice.status === 'ACTIVE' && (unconfirmedSeen || payments.some((p) => paymentState(p) === 'confirming')),
    amount_usd: invoice.amountUsd === null ? null : formatScaled(parseScaled(invoice.amountUsd.toFixed(), USD_DECIMALS), USD_DECIMALS),
    description: invoice.description,
    order_id: invoice.orderId,
    address: invoice.address,
    tokens,
    payments: payments.map((p) => ({ txid: p.trnHash, currency: p.currency, amount: units(p.amountUnits), state: paymentState(p), created_at: isoMicro(p.createdAt) })),
    expired_at: isoMicro(invoice.expiredAt),
    server_time: isoMicro(now),
    redirect_url: phase === 'completed' || phase === 'overpaid' ? invoice.redirectUrl : null,
  };
}
