import { config } from '@/lib/config';
import { AppError } from '@/lib/errors';
import { db, sqlPool } from '@/lib/db/client';
import { RateLimiter } from '@/lib/rateLimit';
import { derived } from '@/lib/singletons';

/**
 * Invoice (and payout) creation allowed to one caller: INVOICE_CREATE_RATE_PER_MINUTE
 * a minute, in bursts of as many (docs/configuration.md). Every invoice costs a
 * derived address and rows that the worker scans, so one key cannot flood the
 * service; reading is not limited. `who` is `key:<hash>` for the API (per key)
 * or `merchant:<id>` for the dashboard. Counted in PostgreSQL, so the limit holds across
 * every web process and host (lib/rateLimit.ts).
 */
export async function checkInvoiceCreationRate(who: string): Promise<void> {
  const perMinute = config().INVOICE_CREATE_RATE_PER_MINUTE;
  // The count is in PostgreSQL; the limiter is only its client, one per copy of lib/ (lib/singletons.ts).
  const limiter = derived(checkInvoiceCreationRate, () => new RateLimiter('create', perMinute, () => sqlPool(db())));
  const wait = await limiter.take(who);
  if (wait !== null) {
    throw new AppError('RATE_LIMITED', `Too many invoices created: the limit is ${perMinute} a minute per API key. Try again in ${wait} s.`, { retryAfterSeconds: wait });
  }
}

/** The limit's key for an API call: the hash of the key it authenticated with (ApiCaller, lib/auth/authenticate.ts). */
export function apiKeyCaller(apiKey: { hash: string }): string {
  return `key:${apiKey.hash}`;
}
