import type { Currency } from '@/lib/money/tokens';
import type { Quote, RateSource } from './source';

/** Constant prices, for the devnet default where no market exists. */
export class FixedRateSource implements RateSource {
  constructor(private readonly rates: Record<Currency, string>) {}

  async quote(currency: Currency): Promise<Quote> {
    return { currency, rateUsd: this.rates[currency], asOf: new Date(), source: 'fixed' };
  }
}
