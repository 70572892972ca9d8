import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { divCeil, formatScaled, parseScaled, toJsonNumber } from '@/lib/money/decimal';
import { amountDue, percentOf, usdToTokenUnits } from '@/lib/money/fees';
import { tokenAmountJson, tokenAmountText, tokenUnits } from '@/lib/money/tokens';
import { gasInUsdt } from '@/lib/rates/gas';
import { FixedRateSource } from '@/lib/rates/fixed';

describe('fixed-point money', () => {
  it('parses decimal text and JSON numbers exactly', () => {
    assert.equal(parseScaled('10.5', 6), 10_500_000n);
    assert.equal(parseScaled(0.1, 6), 100_000n);
    assert.equal(parseScaled(0.000001, 6), 1n);
    assert.equal(parseScaled('007.250000', 6), 7_250_000n);
    assert.equal(parseScaled(123456789.123456, 6), 123_456_789_123_456n);
  });

  it('refuses too many decimals, negatives, exponents above 1 and junk', () => {
    for (const bad of ['1.0000001', '-1', '1e3', 'abc', '', '1.', '.5', Number.NaN, -0.5, 1e21, 1e-7]) {
      assert.throws(() => parseScaled(bad as string | number, 6), String(bad));
    }
  });

  it('formats units without trailing zeros and back to JSON numbers', () => {
    assert.equal(formatScaled(40_000_000n, 6), '40');
    assert.equal(formatScaled(10_605_000n, 6), '10.605');
    assert.equal(formatScaled(1n, 6), '0.000001');
    assert.equal(formatScaled(-1_500_000n, 6), '-1.5');
    assert.equal(toJsonNumber(42_420_000n, 6), 42.42);
  });

  it('divides rounding up', () => {
    assert.equal(divCeil(10n, 3n), 4n);
    assert.equal(divCeil(9n, 3n), 3n);
    assert.equal(divCeil(0n, 3n), 0n);
    assert.throws(() => divCeil(1n, 0n));
  });

  it('converts USD to token units at a rate, rounding in the merchant\'s favour', () => {
    const rate = (r: string) => parseScaled(r, 12);
    assert.equal(usdToTokenUnits(10_000_000n, rate('0.25')), 40_000_000n);
    assert.equal(usdToTokenUnits(5_000_000n, rate('1.0002')), 4_999_001n);
    assert.equal(usdToTokenUnits(1n, rate('3')), 1n);
  });

  it('adds the fee on top only when the client pays it', () => {
    assert.equal(percentOf(42_000_000n, '1'), 420_000n);
    assert.equal(percentOf(1n, '1'), 1n, 'a fee never rounds down to nothing');
    assert.equal(percentOf(1_000_000n, '0.75'), 7_500n);
    assert.deepEqual(amountDue(10_500_000n, '1', true), { dueUnits: 10_605_000n, feeUnits: 105_000n });
    assert.deepEqual(amountDue(10_500_000n, '1', false), { dueUnits: 10_500_000n, feeUnits: 105_000n });
  });
});

describe('token amount helpers (lib/money/tokens.ts)', () => {
  it('convert base units to JSON numbers and exact text and back, at 6 decimals', () => {
    assert.equal(tokenUnits('12.5'), 12_500_000n);
    assert.equal(tokenUnits(0.000001), 1n);
    assert.equal(tokenAmountText(12_500_000n), '12.5');
    assert.equal(tokenAmountJson(1n), 0.000001);
    assert.equal(tokenAmountJson(123_456_789_012_345n), 123456789.012345);
    assert.throws(() => tokenUnits('0.0000001'));
  });
});

describe('a network cost in USDT (lib/rates/gas.ts, the one conversion)', () => {
  it('raises the burn by the margin, converts it at both rates and rounds up', async () => {
    // 1 TRX of burn, 20 % margin: 1.2 TRX at 0.25 USD, paid with USDT at 1 USD: 0.3 USDT.
    assert.deepEqual(await gasInUsdt(new FixedRateSource({ TRX: '0.25', USDT: '1' }), 1_000_000n, '20'), { gasSun: 1_200_000n, units: 300_000n, trxRateUsd: '0.25', usdtRateUsd: '1' });
    // A third of a unit is still a unit: the service never charges less than the send costs it.
    assert.equal((await gasInUsdt(new FixedRateSource({ TRX: '1', USDT: '3' }), 1n, '0')).units, 1n);
  });
});

describe('payment settlement rules', async () => {
  const { percentAsFraction, convertUnits, withMargin } = await import('@/lib/money/fees');
  const { paymentFee, paidShare, statusAfterPayments } = await import('@/lib/rules/settlement');
  const open = { type: 'SINGLE' as const, status: 'ACTIVE' as const, expiredAt: new Date(Date.now() + 60_000), underpaymentTolerancePercent: { toFixed: () => '0' } };
  const due = (receivedUnits: bigint, dueUnits = 40_000_000n) => [{ dueUnits, receivedUnits }];

  it('converts percent to a scaled fraction', () => {
    assert.equal(percentAsFraction('1', 1_000_000n), 10_000n);
    assert.equal(percentAsFraction('0.5', 1_000_000n), 5_000n);
    assert.equal(percentAsFraction('100', 1_000_000n), 1_000_000n);
  });

  it('decides COMPLETED within the tolerance, OVERPAID above, open or UNDERPAID below', () => {
    assert.equal(statusAfterPayments(open, due(40_000_000n), '0.5', new Date()), 'COMPLETED');
    assert.equal(statusAfterPayments(open, due(39_800_000n), '0.5', new Date()), 'COMPLETED');
    assert.equal(statusAfterPayments(open, due(40_200_000n), '0.5', new Date()), 'COMPLETED');
    assert.equal(statusAfterPayments(open, due(40_200_001n), '0.5', new Date()), 'OVERPAID');
    assert.equal(statusAfterPayments(open, due(50_000_000n), '0.5', new Date()), 'OVERPAID');
    assert.equal(statusAfterPayments(open, due(20_000_000n), '0.5', new Date()), 'ACTIVE');
    assert.equal(statusAfterPayments({ ...open, expiredAt: new Date(0) }, due(20_000_000n), '0.5', new Date()), 'UNDERPAID');
    assert.equal(statusAfterPayments({ ...open, status: 'TIMEOUT' }, due(20_000_000n), '0.5', new Date()), 'UNDERPAID');
    assert.equal(statusAfterPayments({ ...open, type: 'MULTIPLE' }, due(20_000_000n), '0.5', new Date()), 'ACTIVE');
  });

  it('caps the tolerance at PAYMENT_TOLERANCE_MAX_USD: a large invoice short by more is not COMPLETED (issue 13)', () => {
    const big = { ...open, amountUsd: { toFixed: () => '100000' } };
    const dueUnits = 400_000_000_000n; // 100,000 USD at 0.25
    // 99.6 % paid: within 0.5 %, but 400 USD short.
    assert.equal(statusAfterPayments(big, due(398_400_000_000n, dueUnits), '0.5', new Date(), '1'), 'ACTIVE');
    assert.equal(statusAfterPayments(big, due(401_600_000_000n, dueUnits), '0.5', new Date(), '1'), 'OVERPAID');
    // 1 USD short (4 TRX) is within the cap.
    assert.equal(statusAfterPayments(big, due(399_996_000_000n, dueUnits), '0.5', new Date(), '1'), 'COMPLETED');
    // A small invoice keeps its 0.5 %: 10 USD, 0.05 USD short.
    assert.equal(statusAfterPayments({ ...open, amountUsd: { toFixed: () => '10' } }, due(39_800_000n), '0.5', new Date(), '1'), 'COMPLETED');
  });

  it("a merchant's underpayment tolerance widens the band below the amount only, uncapped (issue 36)", () => {
    const tolerant = (percent: string) => ({ ...open, amountUsd: { toFixed: () => '100000' }, underpaymentTolerancePercent: { toFixed: () => percent } });
    const dueUnits = 400_000_000_000n;
    // 2 % short (2,000 USD) with a 2 % tolerance: COMPLETED, though the service's band is capped at 1 USD.
    assert.equal(statusAfterPayments(tolerant('2'), due(392_000_000_000n, dueUnits), '0.5', new Date(), '1'), 'COMPLETED');
    assert.equal(statusAfterPayments(tolerant('2'), due(391_999_999_999n, dueUnits), '0.5', new Date(), '1'), 'ACTIVE');
    assert.equal(statusAfterPayments({ ...tolerant('2'), expiredAt: new Date(0) }, due(391_999_999_999n, dueUnits), '0.5', new Date(), '1'), 'UNDERPAID');
    // Above the amount the service's band alone counts: 1 USD over is within it, 2 % over is OVERPAID.
    assert.equal(statusAfterPayments(tolerant('2'), due(400_004_000_000n, dueUnits), '0.5', new Date(), '1'), 'COMPLETED');
    assert.equal(statusAfterPayments(tolerant('2'), due(408_000_000_000n, dueUnits), '0.5', new Date(), '1'), 'OVERPAID');
    // Narrower than the service's band: the service's band counts (0.1 % of 10 USD < 0.5 %).
    assert.equal(statusAfterPayments({ ...tolerant('0.1'), amountUsd: { toFixed: () => '10' } }, due(39_800_000n), '0.5', new Date(), '1'), 'COMPLETED');
  });

  it('sums shares across tokens', () => {
    assert.equal(paidShare([{ dueUnits: 40n, receivedUnits: 20n }, { dueUnits: 10n, receivedUnits: 5n }]), 10n ** 18n);
  });

  it('keeps the creation-time fee share of each payment', () => {
    // Client paid the fee: 10.605 due carries 0.105 fee.
    assert.equal(paymentFee(10_605_000n, { dueUnits: 10_605_000n, feeUnits: 105_000n }, '1'), 105_000n);
    assert.equal(paymentFee(40_000_000n, { dueUnits: 40_000_000n, feeUnits: 400_000n }, '1'), 400_000n);
    assert.equal(paymentFee(7_000_000n, undefined, '1'), 70_000n);
    assert.equal(paymentFee(1n, { dueUnits: 1n, feeUnits: 5n }, '1'), 1n, 'never more than the payment');
  });

  it('adds margins and converts between tokens, rounding up', () => {
    assert.equal(withMargin(100n, '20'), 120n);
    assert.equal(convertUnits(4_000_000n, parseScaled('0.25', 12), parseScaled('1', 12)), 1_000_000n);
  });
});
