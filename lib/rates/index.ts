import { config } from '@/lib/config';
import { FixedRateSource } from './fixed';
import { HttpRateSource } from './http';
import type { RateSource } from './source';

const holder = globalThis as unknown as { __rateSource?: RateSource };

export function rateSource(): RateSource {
  if (!holder.__rateSource) {
    const c = config();
    holder.__rateSource =
      c.RATES_PROVIDER === 'http'
        ? new HttpRateSource({ url: c.RATES_HTTP_URL, cacheSeconds: c.RATES_CACHE_SECONDS, maxAgeSeconds: c.RATES_MAX_AGE_SECONDS })
        : new FixedRateSource({ TRX: c.RATES_FIXED_TRX_USD, USDT: c.RATES_FIXED_USDT_USD });
  }
  return holder.__rateSource;
}

export type { Quote, RateSource } from './source';
