import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { divCeil, formatScaled, parseScaled, toJsonNumber } from '@/lib/money/decimal';
import { amountDue, percentOf, usdToTokenUnits } from '@/lib/money/fees';

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
