import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Prisma } from '@/lib/generated/prisma/client';
import { publicInvoiceView, type PublicInvoiceSource, type PublicPaymentSource } from '@/lib/invoices/publicView';

const now = new Date('2026-01-01T12:00:00Z');
const invoice = (over: Partial<PublicInvoiceSource> = {}): PublicInvoiceSource => ({
  id: 7,
  type: 'SINGLE',
  status: 'ACTIVE',
  amountUsd: new Prisma.Decimal('10'),
  currencies: ['TRX', 'USDT'],
  orderId: 'A-1',
  address: 'Tinvoice',
  redirectUrl: 'https://shop.example/thanks?receipt=1',
  description: 'Mug',
  expiredAt: new Date('2026-01-01T13:00:00Z'),
  amounts: [
    { currency: 'TRX', dueUnits: 40_000_000n, receivedUnits: 0n },
    { currency: 'USDT', dueUnits: 10_000_000n, receivedUnits: 0n },
  ],
  ...over,
});
const payment = (over: Partial<PublicPaymentSource>): PublicPaymentSource => ({ trnHash: 'ab', currency: 'TRX', amountUnits: 0n, paymentState: 'SETTLED', createdAt: now, ...over });
const withReceived = (trx: bigint, usdt: bigint) => [
  { currency: 'TRX' as const, dueUnits: 40_000_000n, receivedUnits: trx },
  { currency: 'USDT' as const, dueUnits: 10_000_000n, receivedUnits: usdt },
];

describe('the customer\'s view of an invoice', () => {
  it('a new invoice waits for the whole amount in either token and hides the redirect', () => {
    const v = publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: null, now });
    assert.equal(v.phase, 'waiting');
    assert.deepEqual(v.tokens, [
      { currency: 'TRX', amount_due: '40', received: '0', missing: '40' },
      { currency: 'USDT', amount_due: '10', received: '0', missing: '10' },
    ]);
    assert.equal(v.redirect_url, null);
    assert.equal(v.final, false);
    assert.equal(v.amount_usd, '10');
    assert.deepEqual(Object.keys(v).sort(), ['address', 'amount_usd', 'confirming', 'description', 'expired_at', 'final', 'id', 'order_id', 'payments', 'phase', 'redirect_url', 'server_time', 'status', 'tokens', 'type']);
  });

  it('counts part paid in one token against what is missing in both', () => {
    const v = publicInvoiceView({ invoice: invoice({ amounts: withReceived(15_000_000n, 0n) }), payments: [payment({ amountUnits: 15_000_000n })], unconfirmed: null, now });
    assert.equal(v.phase, 'partial');
    assert.deepEqual(v.tokens.map((t) => t.missing), ['25', '6.25']);
  });

  it('a customer paying half in each token has paid in full, and never is told to send less than is missing', () => {
    const full = publicInvoiceView({ invoice: invoice({ amounts: withReceived(20_000_000n, 5_000_000n) }), payments: [], unconfirmed: null, now });
    assert.deepEqual(full.tokens.map((t) => t.missing), ['0', '0']);
    assert.equal(full.phase, 'confirming', 'paid, waiting for the worker to settle');
    // 1 unit of USDT short: the TRX still missing rounds up, not down to zero.
    const short = publicInvoiceView({ invoice: invoice({ amounts: withReceived(20_000_000n, 4_999_999n) }), payments: [], unconfirmed: null, now });
    assert.deepEqual(short.tokens.map((t) => t.missing), ['0.000004', '0.000001']);
  });

  it('shows a transfer seen on the chain before the worker books it', () => {
    const v = publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: { USDT: 10_000_000n }, now });
    assert.equal(v.confirming, true);
    assert.equal(v.phase, 'confirming');
    assert.equal(v.tokens[1]?.received, '10');
  });

  it('reveals the redirect only once paid, and says expired when the time ran out unpaid', () => {
    assert.equal(publicInvoiceView({ invoice: invoice({ status: 'COMPLETED' }), payments: [], unconfirmed: null, now }).redirect_url, 'https://shop.example/thanks?receipt=1');
    assert.equal(publicInvoiceView({ invoice: invoice({ status: 'OVERPAID' }), payments: [], unconfirmed: null, now }).phase, 'overpaid');
    assert.equal(publicInvoiceView({ invoice: invoice({ status: 'UNDERPAID' }), payments: [], unconfirmed: null, now }).redirect_url, null);
    assert.equal(publicInvoiceView({ invoice: invoice({ expiredAt: new Date('2026-01-01T11:00:00Z') }), payments: [], unconfirmed: null, now }).phase, 'expired');
    const canceled = publicInvoiceView({ invoice: invoice({ status: 'CANCELED' }), payments: [], unconfirmed: null, now });
    assert.equal(canceled.phase, 'canceled');
    assert.equal(canceled.final, true);
  });

  it('lists a returned payment as returned and does not count it as paid', () => {
    const v = publicInvoiceView({ invoice: invoice(), payments: [payment({ amountUnits: 40_000_000n, paymentState: 'REFUNDED' })], unconfirmed: null, now });
    assert.equal(v.payments[0]?.state, 'returned');
    assert.equal(v.tokens[0]?.received, '0');
  });

  it('a static address asks for no amount', () => {
    const v = publicInvoiceView({ invoice: invoice({ type: 'MULTIPLE', amountUsd: null }), payments: [payment({ amountUnits: 3_000_000n, paymentState: 'FORWARDING' })], unconfirmed: null, now });
    assert.equal(v.type, 'MULTIPLE');
    assert.deepEqual(v.tokens.map((t) => [t.amount_due, t.missing]), [[null, null], [null, null]]);
    assert.equal(v.payments[0]?.state, 'confirming');
  });
});
