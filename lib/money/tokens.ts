import { z } from 'zod';
import { formatScaled, parseScaled, toJsonNumber } from './decimal';

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

/*
 * The one set of token-amount helpers (TRX and USDT share TOKEN_DECIMALS). Base
 * units are bigint everywhere; these are the only conversions to and from the
 * API's JSON numbers and exact decimal text, so no caller picks a scale.
 */

/** Base units → the API's JSON number (spec 2.x amounts); exact, as an amount has at most 6 decimals. */
export const tokenAmountJson = (units: bigint): number => toJsonNumber(units, TOKEN_DECIMALS);

/** Base units → exact decimal text ("12.5"), for pages, CSV and the devnet. */
export const tokenAmountText = (units: bigint): string => formatScaled(units, TOKEN_DECIMALS);

/** Decimal text or a JSON number → base units; throws DecimalFormatError on more than 6 decimals or a malformed amount. */
export const tokenUnits = (amount: string | number): bigint => parseScaled(amount, TOKEN_DECIMALS);
