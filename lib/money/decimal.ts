/**
 * Exact fixed-point arithmetic on bigint. Amounts travel as decimal strings or
 * integer base units; a JS float never carries money.
 */

export class DecimalFormatError extends Error {}

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal (string, or a JSON number's shortest text) into
 * an integer scaled by 10^scale. Throws when it has more than `scale` decimals.
 */
export function parseScaled(input: string | number, scale: number): bigint {
  const text = typeof input === 'number' ? numberText(input) : input.trim();
  const m = DECIMAL_RE.exec(text);
  if (!m) throw new DecimalFormatError('must be a non-negative decimal number');
  const whole = m[1] ?? '0';
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > scale) throw new DecimalFormatError(`must have at most ${scale} decimal places`);
  return BigInt(whole) * 10n ** BigInt(scale) + BigInt(frac.padEnd(scale, '0') || '0');
}

// JSON.parse already turned the client's text into a double; its shortest
// round-trip text is what the client wrote, as long as it is a plain decimal.
function numberText(n: number): string {
  if (!Number.isFinite(n) || n < 0) throw new DecimalFormatError('must be a non-negative decimal number');
  const s = String(n);
  if (!s.includes('e')) return s;
  if (n >= 1) throw new DecimalFormatError('is too large');
  // e.g. 1e-7: expand so that the scale check can reject or accept it.
  return n.toFixed(20).replace(/0+$/, '');
}

/** Renders scaled units as a decimal string without trailing zeros ("12.5", "3"). */
export function formatScaled(units: bigint, scale: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const base = 10n ** BigInt(scale);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(scale, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/**
 * A JSON number for the API. The decimal text is exact; the number a client's
 * parser builds from it is the nearest double, as with any JSON number.
 */
export function toJsonNumber(units: bigint, scale: number): number {
  return Number(formatScaled(units, scale));
}

export function divCeil(a: bigint, b: bigint): bigint {
  if (b <= 0n) throw new RangeError('divisor must be positive');
  return a >= 0n ? (a + b - 1n) / b : a / b;
}
