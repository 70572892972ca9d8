import { config } from '@/lib/config';
import { FixedRateSource } from './fixed';
import { HttpRateSource } from './http';
import type { RateSource } from './source';
import { derived, singleton } from '@/lib/singletons';

/**
 * The rate source from RATES_* settings: one per copy of lib/ (its errors are that copy's
 * AppErrors), over the process's one cache of the provider's quotes (lib/singletons.ts).
 */
export function rateSource(): RateSource {
  return derived(HttpRateSource, () => {
    const c = config();
    return c.RATES_PROVIDER === 'http'
      ? new HttpRateSource({ url: c.RATES_HTTP_URL, cacheSeconds: c.RATES_CACHE_SECONDS, maxAgeSeconds: c.RATES_MAX_AGE_SECONDS, cache: singleton('rateQuotes', () => ({})) })
      : new FixedRateSource({ TRX: c.RATES_FIXED_TRX_USD, USDT: c.RATES_FIXED_USDT_USD });
  });
}

export type { Quote, RateSource } from './source';
export { gasInUsdt, type GasInUsdt } from './gas';
