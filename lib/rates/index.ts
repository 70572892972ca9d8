import { config } from '@/lib/config';
import { FixedRateSource } from './fixed';
import { HttpRateSource } from './http';
import type { RateSource } from './source';
import { singleton } from '@/lib/singletons';

export function rateSource(): RateSource {
  return singleton('rateSource', () => {
    const c = config();
    return c.RATES_PROVIDER === 'http'
      ? new HttpRateSource({ url: c.RATES_HTTP_URL, cacheSeconds: c.RATES_CACHE_SECONDS, maxAgeSeconds: c.RATES_MAX_AGE_SECONDS })
      : new FixedRateSource({ TRX: c.RATES_FIXED_TRX_USD, USDT: c.RATES_FIXED_USDT_USD });
  });
}

export type { Quote, RateSource } from './source';
