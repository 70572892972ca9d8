import type { Currency } from '@/lib/money/tokens';

export interface Quote {
  currency: Currency;
  /** USD per whole token, as exact decimal text. */
  rateUsd: string;
  asOf: Date;
  source: string;
}

/**
 * The HTTP provider's last quotes and the fetch under way: data, kept once per process
 * (lib/singletons.ts `rateQuotes`) so that every copy of lib/ asks the provider once per period.
 */
export interface RateCache {
  current?: { quotes: Map<Currency, Quote>; fetchedAt: number };
  inflight?: Promise<void>;
}

export interface RateSource {
  quote(currency: Currency): Promise<Quote>;
}
