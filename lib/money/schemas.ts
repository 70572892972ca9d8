import { z } from 'zod';
import { DecimalFormatError, parseScaled } from './decimal';
import { USD_DECIMALS } from './tokens';

const MAX_USD_MICROS = 1_000_000_000n * 10n ** BigInt(USD_DECIMALS); // one billion USD

/** A positive USD amount, exact to micro-dollars, as a JSON number or a decimal string. */
export const usdAmountSchema = z.union([z.number(), z.string()], { error: 'A valid number is required.' }).transform((value, ctx) => {
  try {
    const micros = parseScaled(value, USD_DECIMALS);
    if (micros <= 0n) ctx.addIssue({ code: 'custom', message: 'Ensure this value is greater than 0.' });
    else if (micros > MAX_USD_MICROS) ctx.addIssue({ code: 'custom', message: 'Ensure this value is at most 1000000000.' });
    return micros;
  } catch (err) {
    const why = err instanceof DecimalFormatError ? err.message : 'must be a number';
    ctx.addIssue({ code: 'custom', message: `A valid number is required: it ${why}.` });
    return z.NEVER;
  }
});
