import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Prisma } from '@/lib/generated/prisma/client';
import { limitedView, publicInvoiceView, type PublicInvoiceSource, type PublicPaymentSource, type PublicViewInput } from '@/lib/invoices/publicView';

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
      { currency: 'TRX', amount_due: '40', received: '0', missing: '40', extra: null, amount_before_fee: null, service_fee: null },
      { currency: 'USDT', amount_due: '10', received: '0', missing: '10', extra: null, amount_before_fee: null, service_fee: null },
    ]);
    assert.equal(v.redirect_url, null);
    assert.equal(v.final, false);
    assert.equal(v.amount_usd, '10');
    assert.deepEqual(Object.keys(v).sort(), ['address', 'amount_usd', 'confirming', 'description', 'expired_at', 'final', 'full', 'id', 'merchant', 'order_id', 'payments', 'phase', 'receipt_email', 'redirect_url', 'server_time', 'status', 'tokens', 'type']);
  });

  it('a payment waiting for finality says how many blocks it has of those that make it final; a booked one does not (issue 38)', () => {
    const seen = payment({ trnHash: 'cd', paymentState: 'DETECTED', blockNumber: 100, amountUnits: 40_000_000n });
    const view = (chain: PublicViewInput['chain']) => publicInvoiceView({ invoice: invoice(), payments: [seen], unconfirmed: null, chain, now }).payments[0]!;
    // Mainnet-like: final 19 blocks below the head. The payment's block and 4 above it: 5 of the 20 that make it final.
    assert.deepEqual(view({ head: 104, solidified: 85 }).confirmations, { blocks: 5, needed: 20 });
    // Its block final (the worker has not booked it yet): all of them, never more.
    assert.deepEqual(view({ head: 130, solidified: 110 }).confirmations, { blocks: 21, needed: 21 });
    // The head cursor behind the payment's own block (the head scanner is catching up): its own block counts.
    assert.deepEqual(view({ head: 90, solidified: 85 }).confirmations, { blocks: 1, needed: 16 });
    assert.equal(view(null).confirmations, null, 'the chain not read: nothing made up');
    assert.equal(publicInvoiceView({ invoice: invoice(), payments: [{ ...seen, blockNumber: null }], unconfirmed: null, chain: { head: 104, solidified: 85 }, now }).payments[0]!.confirmations, null, 'in no block: nothing to count');
    const booked = publicInvoiceView({ invoice: invoice(), payments: [{ ...seen, paymentState: 'SETTLED' }], unconfirmed: null, chain: { head: 104, solidified: 85 }, now });
    assert.equal(booked.payments[0]!.confirmations, null);
    const heldOne = publicInvoiceView({ invoice: invoice(), payments: [{ ...seen, paymentState: 'HELD' }], unconfirmed: null, chain: { head: 104, solidified: 85 }, now });
    assert.equal(heldOne.payments[0]!.confirmations, null, 'a held payment is not confirming');
  });

  it('links each payment to the network\'s explorer where there is one, never on the devnet (issue 38)', () => {
    const p = payment({ trnHash: 'cd' });
    assert.equal(publicInvoiceView({ invoice: invoice(), payments: [p], unconfirmed: null, explorerTx: 'https://tronscan.org/#/transaction/', now }).payments[0]!.explorer_url, 'https://tronscan.org/#/transaction/cd');
    assert.equal(publicInvoiceView({ invoice: invoice(), payments: [p], unconfirmed: null, explorerTx: null, now }).payments[0]!.explorer_url, null);
    assert.deepEqual(Object.keys(publicInvoiceView({ invoice: invoice(), payments: [p], unconfirmed: null, now }).payments[0]!).sort(), ['amount', 'confirmations', 'created_at', 'currency', 'explorer_url', 'held_reason', 'state', 'txid']);
  });

  it("shows the merchant's profile and nothing else of the merchant, and only with the link key (issue 26)", () => {
    assert.equal(publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: null, now }).merchant, null, 'no profile: the generic wording');
    const empty = { storeName: null, supportEmail: null, supportUrl: null, logoUrl: null };
    assert.equal(publicInvoiceView({ invoice: invoice(), merchant: empty, payments: [], unconfirmed: null, now }).merchant, null, 'an empty profile is no profile');
    // The whole merchant row, as a careless caller might pass it: only the four profile fields come out.
    const row = { ...empty, storeName: 'Mug Shop', supportEmail: 'help@mug.example', email: 'owner@private.example', webhookUrl: 'https://hook.example/secret', webhookSecretEnc: 'sealed', passwordHash: 'hash' };
    const v = publicInvoiceView({ invoice: invoice(), merchant: row, payments: [], unconfirmed: null, now });
    assert.deepEqual(v.merchant, { store_name: 'Mug Shop', support_email: 'help@mug.example', support_url: null, logo_url: null });
    const json = JSON.stringify(v);
    for (const secret of ['owner@private.example', 'hook.example', 'sealed', 'hash']) assert.ok(!json.includes(secret), `${secret} leaked: ${json}`);
    // Ids are sequential: walking them without the link key must not list the service's stores.
    assert.equal(limitedView(v).merchant, null);
  });

  it('splits the amount due into amount and service fee when the customer pays the fee (issue 26)', () => {
    const amounts = [
      { currency: 'TRX' as const, dueUnits: 101_000_000n, feeUnits: 1_000_000n, receivedUnits: 0n },
      { currency: 'USDT' as const, dueUnits: 25_250_000n, feeUnits: 250_000n, receivedUnits: 0n },
    ];
    const v = publicInvoiceView({ invoice: invoice({ clientCommission: true, amounts }), payments: [], unconfirmed: null, now });
    assert.deepEqual(
      v.tokens.map((t) => [t.amount_before_fee, t.service_fee, t.amount_due]),
      [['100', '1', '101'], ['25', '0.25', '25.25']],
    );
    // The merchant pays the fee (taken when forwarding): the customer is asked for the amount alone, no fee line.
    const merchantPays = publicInvoiceView({ invoice: invoice({ clientCommission: false, amounts: amounts.map((a) => ({ ...a, dueUnits: a.dueUnits - a.feeUnits })) }), payments: [], unconfirmed: null, now });
    assert.deepEqual(merchantPays.tokens.map((t) => [t.amount_before_fee, t.service_fee, t.amount_due]), [[null, null, '100'], [null, null, '25']]);
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

  it("stops asking for the rest within the merchant's underpayment tolerance, counting both tokens; below it asks as before (issue 36)", () => {
    const tolerant = (trx: bigint, usdt: bigint, percent = '2') => invoice({ amounts: withReceived(trx, usdt), underpaymentTolerancePercent: new Prisma.Decimal(percent) });
    // 39.2 of 40 TRX: 2 % short.
    assert.equal(publicInvoiceView({ invoice: tolerant(39_200_000n, 0n), payments: [], unconfirmed: null, now }).phase, 'confirming');
    assert.equal(publicInvoiceView({ invoice: tolerant(39_199_999n, 0n), payments: [], unconfirmed: null, now }).phase, 'partial');
    // Half in TRX, the rest 2 % short in USDT.
    assert.equal(publicInvoiceView({ invoice: tolerant(20_000_000n, 4_800_000n), payments: [], unconfirmed: null, now }).phase, 'confirming');
    assert.equal(publicInvoiceView({ invoice: tolerant(39_200_000n, 0n, '0'), payments: [], unconfirmed: null, now }).phase, 'partial', 'no tolerance: the rest is asked for');
  });

  it('shows a transfer seen on the chain before the worker books it', () => {
    const v = publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: { USDT: 10_000_000n }, now });
    assert.equal(v.confirming, true);
    assert.equal(v.phase, 'confirming');
    assert.equal(v.tokens[1]?.received, '10');
  });

  it('stops asking for the rest at 00:00, partly paid, before the worker closes the invoice (issue 26)', () => {
    const lapsed = invoice({ amounts: withReceived(15_000_000n, 0n), expiredAt: new Date('2026-01-01T11:59:59Z') });
    const v = publicInvoiceView({ invoice: lapsed, payments: [payment({ amountUnits: 15_000_000n })], unconfirmed: null, now });
    assert.equal(v.status, 'ACTIVE');
    assert.equal(v.phase, 'expired');
    assert.equal(v.tokens[0]?.received, '15', 'what arrived is still shown');
    // Paid in full on time but not yet booked: still confirming, not expired.
    const paid = invoice({ amounts: withReceived(40_000_000n, 0n), expiredAt: new Date('2026-01-01T11:59:59Z') });
    assert.equal(publicInvoiceView({ invoice: paid, payments: [], unconfirmed: null, now }).phase, 'confirming');
  });

  it('shows a held payment as held for the merchant, with the reason in customer terms, not as confirming (issue 26)', () => {
    const held = (heldReason: string, currency: 'TRX' | 'USDT' = 'TRX') => payment({ amountUnits: 40_000_000n, currency, paymentState: 'HELD', heldReason });
    const canceled = publicInvoiceView({ invoice: invoice({ status: 'CANCELED' }), payments: [held('invoice canceled: the merchant decides whether to forward or return it')], unconfirmed: null, now });
    assert.deepEqual(canceled.payments.map((p) => [p.state, p.held_reason]), [['held', 'canceled']]);
    const wrongToken = publicInvoiceView({ invoice: invoice({ currencies: ['TRX'] }), payments: [held('token not accepted: invoice 7 accepts TRX, not USDT', 'USDT')], unconfirmed: null, now });
    assert.deepEqual(wrongToken.payments.map((p) => [p.state, p.held_reason]), [['held', 'token']]);
    assert.equal(wrongToken.confirming, false, 'nothing is being confirmed');
    const dust = publicInvoiceView({ invoice: invoice(), payments: [held('dust: 0.5 TRX is below the 1 TRX threshold; not screened or forwarded')], unconfirmed: null, now });
    assert.equal(dust.payments[0]?.held_reason, 'dust');
    assert.equal(dust.phase, 'waiting', 'a held payment does not pay the invoice');
    const other = publicInvoiceView({ invoice: invoice(), payments: [held('cannot be sent: node said no')], unconfirmed: null, now });
    assert.equal(other.payments[0]?.held_reason, 'other');
    assert.doesNotMatch(JSON.stringify(other), /node said no/, 'the worker\'s own words stay private');
    assert.equal(publicInvoiceView({ invoice: invoice(), payments: [payment({ amountUnits: 1n })], unconfirmed: null, now }).payments[0]?.held_reason, null);
  });

  it('an overpaid invoice says by how much, in each token, counting every token as missing does (issue 38)', () => {
    const paid = (trx: bigint, usdt: bigint) => publicInvoiceView({ invoice: invoice({ status: 'OVERPAID', amounts: withReceived(trx, usdt) }), payments: [], unconfirmed: null, now });
    assert.deepEqual(paid(45_000_000n, 0n).tokens.map((t) => [t.currency, t.extra]), [['TRX', '5'], ['USDT', '1.25']]);
    assert.deepEqual(paid(20_000_000n, 6_000_000n).tokens.map((t) => t.extra), ['4', '1']);
    // Any other status: none (what arrived is exactly due, or still short).
    assert.deepEqual(publicInvoiceView({ invoice: invoice({ status: 'COMPLETED', amounts: withReceived(40_000_000n, 0n) }), payments: [], unconfirmed: null, now }).tokens.map((t) => t.extra), [null, null]);
    assert.deepEqual(publicInvoiceView({ invoice: invoice({ amounts: withReceived(45_000_000n, 0n) }), payments: [], unconfirmed: null, now }).tokens.map((t) => t.extra), [null, null]);
  });

  it('offers the receipt e-mail only where the service sends e-mail, on a SINGLE invoice, never in the limited view (issue 36)', () => {
    const offered = publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: null, receiptEmail: 'buyer@example.com', now });
    assert.deepEqual(offered.receipt_email, { address: 'buyer@example.com' });
    assert.deepEqual(publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: null, receiptEmail: null, now }).receipt_email, { address: null });
    assert.equal(publicInvoiceView({ invoice: invoice(), payments: [], unconfirmed: null, now }).receipt_email, null, 'no SMTP: not offered');
    assert.equal(publicInvoiceView({ invoice: invoice({ type: 'MULTIPLE' }), payments: [], unconfirmed: null, receiptEmail: null, now }).receipt_email, null, 'a static address');
    assert.equal(limitedView(offered).receipt_email, null);
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

  it('a payment that failed the AML check says it was returned, offers no redirect and is final', () => {
    const v = publicInvoiceView({ invoice: invoice({ status: 'AML_FAILED' }), payments: [payment({ amountUnits: 40_000_000n, paymentState: 'REFUNDED' })], unconfirmed: null, now });
    assert.equal(v.phase, 'aml_failed');
    assert.equal(v.final, true);
    assert.equal(v.confirming, false);
    assert.equal(v.redirect_url, null);
    assert.equal(v.payments[0]?.state, 'returned');
    assert.equal(v.tokens[0]?.received, '0', 'the returned payment does not count as paid');
  });

  it('a static address asks for no amount', () => {
    const v = publicInvoiceView({ invoice: invoice({ type: 'MULTIPLE', amountUsd: null }), payments: [payment({ amountUnits: 3_000_000n, paymentState: 'FORWARDING' })], unconfirmed: null, now });
    assert.equal(v.type, 'MULTIPLE');
    assert.deepEqual(v.tokens.map((t) => [t.amount_due, t.missing]), [[null, null], [null, null]]);
    assert.equal(v.payments[0]?.state, 'confirming');
  });
});

describe('the public view of a mass payout (its top-up page)', () => {
  const TOPUP = 78_271_800n;
  const payout = (over: Partial<PublicInvoiceSource> = {}): PublicInvoiceSource =>
    invoice({
      type: 'MULTIPLE_TRANSFER',
      amountUsd: new Prisma.Decimal('9.375'),
      currencies: ['TRX'],
      orderId: null,
      redirectUrl: null,
      description: null,
      amounts: [{ currency: 'TRX', dueUnits: TOPUP, receivedUnits: 0n }],
      ...over,
    });
  const view = (over: Partial<PublicInvoiceSource> = {}, rest: Partial<Omit<PublicViewInput, 'invoice'>> = {}) =>
    publicInvoiceView({ invoice: payout(over), payments: [], unconfirmed: null, now, ...rest });

  it('asks for the exact top-up and shows nothing of the targets or the merchant', () => {
    // The whole database row, as a careless caller might pass it: none of its private fields may come out.
    const row = { ...payout(), targetWallets: [{ address: 'TtargetNumberOne', amount: 37.5 }], merchant: { email: 'payer@example.com' }, privateKeyEnc: 'sealed' };
    const v = publicInvoiceView({ invoice: row, payments: [], unconfirmed: null, now });
    assert.equal(v.type, 'MULTIPLE_TRANSFER');
    assert.equal(v.phase, 'waiting');
    assert.deepEqual(v.tokens, [{ currency: 'TRX', amount_due: '78.2718', received: '0', missing: '78.2718', extra: null, amount_before_fee: null, service_fee: null }]);
    assert.equal(v.amount_usd, null, "the USD amount is the targets' total");
    assert.deepEqual(Object.keys(v).sort(), ['address', 'amount_usd', 'confirming', 'description', 'expired_at', 'final', 'full', 'id', 'merchant', 'order_id', 'payments', 'phase', 'receipt_email', 'redirect_url', 'server_time', 'status', 'tokens', 'type']);
    const json = JSON.stringify(v);
    for (const secret of ['TtargetNumberOne', '37.5', '9.375', 'payer@example.com', 'sealed']) assert.ok(!json.includes(secret), `${secret} leaked: ${json}`);
  });

  it('goes from waiting to partly topped up, top-up seen, and paying out once the confirmed top-ups reach the quote', () => {
    const partial = view({ amounts: [{ currency: 'TRX', dueUnits: TOPUP, receivedUnits: 50_000_000n }] }, { toppedUp: 50_000_000n });
    assert.equal(partial.phase, 'partial');
    assert.equal(partial.tokens[0]?.missing, '28.2718');
    const seen = view({}, { unconfirmed: { TRX: TOPUP } });
    assert.deepEqual([seen.phase, seen.confirming], ['confirming', true]);
    // Recorded by the scanner, not yet booked by the payout loop: the loop sends on the rows alone.
    const paying = view({}, { toppedUp: TOPUP });
    assert.deepEqual([paying.phase, paying.final, paying.tokens[0]?.missing], ['paying_out', false, '0']);
  });

  it('short of the quote at expiry it is expired, but a full top-up is paid out even late', () => {
    const late = { expiredAt: new Date('2026-01-01T11:00:00Z') };
    assert.equal(view(late, { toppedUp: 50_000_000n }).phase, 'expired');
    assert.equal(view(late, { toppedUp: TOPUP }).phase, 'paying_out');
  });

  it('ends as completed, error, expired or canceled, and then never changes', () => {
    const ends = (['COMPLETED', 'ERROR', 'TIMEOUT', 'CANCELED'] as const).map((status) => view({ status }, { toppedUp: TOPUP }));
    assert.deepEqual(ends.map((v) => v.phase), ['completed', 'error', 'expired', 'canceled']);
    // An invoice past TIMEOUT can still be paid late; the payout loop never touches a closed payout.
    assert.deepEqual(ends.map((v) => v.final), [true, true, true, true]);
    assert.equal(publicInvoiceView({ invoice: invoice({ status: 'TIMEOUT' }), payments: [], unconfirmed: null, now }).final, false);
    assert.equal(ends[0]?.redirect_url, null);
  });
});

describe("a refund's claim page", () => {
  it('questions an address that shares its first five and last four characters with one the invoice saw, but is not it (address poisoning)', async () => {
    const { lookalikes } = await import('@/lib/refunds/claim');
    const payer = 'TGLheo1KN8M5W5fGbkeYXVFHnbKnN5pLPd';
    const poisoned = 'TGLheXXXXXXXXXXXXXXXXXXXXXXXXX5pLPd';
    assert.deepEqual(lookalikes(poisoned, [payer, payer]), [payer], 'named once');
    assert.deepEqual(lookalikes(payer, [payer]), [], 'the payer\'s own address is no look-alike');
    assert.deepEqual(lookalikes('TGLhfXXXXXXXXXXXXXXXXXXXXXXXXX5pLPd', [payer]), [], 'a fifth character differs');
    assert.deepEqual(lookalikes('TGLheXXXXXXXXXXXXXXXXXXXXXXXXX5pLPe', [payer]), [], 'the last character differs');
  });
});
