import type { Currency } from '@/lib/money/tokens';

export interface Quote {
  currency: Currency;
  /** USD per whole token, as exact decimal text. */
  rateUsd: string;
  asOf: Date;
  source: string;
}

export interface RateSource {
  quote(currency: Currency): Promise<Quote>;
}
