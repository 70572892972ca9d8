import { z } from 'zod';
import { AppError } from '@/lib/errors';
import { parseScaled } from '@/lib/money/decimal';
import { RATE_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { Quote, RateCache, RateSource } from './source';

// CoinGecko's simple/price shape: {tron: {usd, last_updated_at}, tether: {...}}.
const COIN_IDS: Record<Currency, string> = { TRX: 'tron', USDT: 'tether' };
const priceSchema = z.object({ usd: z.number().positive(), last_updated_at: z.number().int().optional() });
const responseSchema = z.record(z.string(), priceSchema);
const FETCH_TIMEOUT_MS = 5_000;

/** UNAVAILABLE: thrown in the web (503 at the edge) and in the worker alike, which only sees the code. */
export class RateUnavailableError extends AppError {
  constructor(currency: Currency, reason: string) {
    super('UNAVAILABLE', `Exchange rate for ${currency} is unavailable (${reason}); try again later`);
  }
}

interface Options {
  url: string;
  cacheSeconds: number;
  maxAgeSeconds: number;
  now?: () => number;
  /** Where the quotes are kept: the process's (lib/rates `rateSource()`), or one of its own. */
  cache?: RateCache;
}

/**
 * Market prices over HTTP, cached for `cacheSeconds`. A quote older than
 * `maxAgeSeconds` (by the provider's own timestamp or our fetch time) is never
 * used: an invoice priced on a stale rate costs someone real money.
 */
export class HttpRateSource implements RateSource {
  private readonly cache: RateCache;
  private readonly now: () => number;

  constructor(private readonly options: Options) {
    this.now = options.now ?? Date.now;
    this.cache = options.cache ?? {};
  }

  async quote(currency: Currency): Promise<Quote> {
    const cache = this.cache;
    if (!cache.current || this.now() - cache.current.fetchedAt > this.options.cacheSeconds * 1000) {
      const inflight = (cache.inflight ??= this.refresh().finally(() => {
        if (cache.inflight === inflight) cache.inflight = undefined;
      }));
      await inflight.catch((err: Error) => console.warn(`Rate refresh failed: ${err.message}`));
    }
    const quote = cache.current?.quotes.get(currency);
    if (!quote) throw new RateUnavailableError(currency, 'no quote from the rate provider');
    const ageSeconds = (this.now() - quote.asOf.getTime()) / 1000;
    if (ageSeconds > this.options.maxAgeSeconds) {
      throw new RateUnavailableError(currency, `last quote is ${Math.round(ageSeconds)} s old, limit ${this.options.maxAgeSeconds} s`);
    }
    return quote;
  }

  private async refresh(): Promise<void> {
    const res = await fetch(this.options.url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`rate provider answered ${res.status}`);
    const body = responseSchema.parse(await res.json());
    const fetchedAt = this.now();
    const quotes = new Map<Currency, Quote>();
    for (const [currency, id] of Object.entries(COIN_IDS) as [Currency, string][]) {
      const price = body[id];
      if (!price) continue;
      const rateUsd = String(price.usd);
      parseScaled(rateUsd, RATE_DECIMALS); // rejects exponent forms we could not store exactly
      const asOf = new Date(Math.min(fetchedAt, (price.last_updated_at ?? fetchedAt / 1000) * 1000));
      quotes.set(currency, { currency, rateUsd, asOf, source: this.options.url });
    }
    this.cache.current = { quotes, fetchedAt };
  }
}
