import { z } from 'zod';

export const CURRENCIES = ['TRX', 'USDT'] as const;
export const currencySchema = z.enum(CURRENCIES);
export type Currency = z.infer<typeof currencySchema>;

/** Both tokens use 6 decimals: TRX in sun, USDT (TRC-20) in its base units. */
export const TOKEN_DECIMALS = 6;
/** USD amounts are kept to micro-dollars. */
export const USD_DECIMALS = 6;
/** Rates are USD per whole token, kept to 12 decimals. */
export const RATE_DECIMALS = 12;
/** Fee percentages (FORWARDING_FEE_PERCENT, TOPUP_FEE_PERCENT) are kept to 4 decimals. */
export const PERCENT_DECIMALS = 4;
