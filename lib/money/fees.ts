import { divCeil, parseScaled } from './decimal';
import { PERCENT_DECIMALS, RATE_DECIMALS, TOKEN_DECIMALS, USD_DECIMALS } from './tokens';

/** Token base units needed to cover `usdMicros` at `rateScaled` (USD per token); rounded up so the merchant is never short. */
export function usdToTokenUnits(usdMicros: bigint, rateScaled: bigint): bigint {
  const scaleShift = 10n ** BigInt(RATE_DECIMALS + TOKEN_DECIMALS - USD_DECIMALS);
  return divCeil(usdMicros * scaleShift, rateScaled);
}

/** `percent` (a decimal string such as "1" or "0.75") of `units`, rounded up to the next base unit. */
export function percentOf(units: bigint, percent: string): bigint {
  const scaled = parseScaled(percent, PERCENT_DECIMALS);
  return divCeil(units * scaled, 100n * 10n ** BigInt(PERCENT_DECIMALS));
}

export interface AmountDue {
  /** What the customer pays. */
  dueUnits: bigint;
  /** The forwarding fee inside or on top of it. */
  feeUnits: bigint;
}

/**
 * Splits an invoice amount into what the customer pays and the forwarding fee.
 * When the client pays the fee it is added on top; otherwise the merchant's
 * share shrinks by it when the funds are forwarded.
 */
export function amountDue(baseUnits: bigint, feePercent: string, clientPaysFee: boolean): AmountDue {
  const feeUnits = percentOf(baseUnits, feePercent);
  return { dueUnits: clientPaysFee ? baseUnits + feeUnits : baseUnits, feeUnits };
}

/** `percent` as a fraction scaled by `scale` (e.g. "0.5" at 10^6 is 5,000). */
export function percentAsFraction(percent: string, scale: bigint): bigint {
  return (parseScaled(percent, PERCENT_DECIMALS) * scale) / (100n * 10n ** BigInt(PERCENT_DECIMALS));
}

/** `units` raised by `percent`, rounded up: a safety margin on an estimated cost. */
export function withMargin(units: bigint, percent: string): bigint {
  return units + percentOf(units, percent);
}

/** Converts token units at USD rates (both scaled to RATE_DECIMALS), rounding up. */
export function convertUnits(units: bigint, fromRateScaled: bigint, toRateScaled: bigint): bigint {
  return divCeil(units * fromRateScaled, toRateScaled);
}
