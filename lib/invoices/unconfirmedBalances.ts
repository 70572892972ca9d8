import { chain } from '@/lib/chain';
import type { Currency } from '@/lib/money/tokens';
import { singleton } from '@/lib/singletons';

// Every open page polls every few seconds; one node read per address per window is plenty.
const CACHE_MS = 2_000;
// A slow or dead node must not hold up the page; the confirmed state still renders.
const TIMEOUT_MS = 2_500;

export type Balances = Partial<Record<Currency, bigint>>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function read(address: string, currencies: readonly Currency[]): Promise<Balances | null> {
  try {
    const c = chain();
    const entries = await withTimeout(
      Promise.all(currencies.map(async (currency) => [currency, await (currency === 'TRX' ? c.getTrxBalance(address) : c.getUsdtBalance(address))] as const)),
      TIMEOUT_MS,
    );
    return Object.fromEntries(entries);
  } catch {
    return null;
  }
}

/**
 * Head-state (unconfirmed) balances of an invoice address, so a customer sees
 * the payment within a block instead of after the worker's confirmation.
 * Null when the node cannot be reached.
 */
export function unconfirmedBalances(address: string, currencies: readonly Currency[]): Promise<Balances | null> {
  const now = Date.now();
  const cache = singleton('unconfirmedBalances', () => new Map());
  const hit = cache.get(address);
  if (hit && now - hit.at < CACHE_MS) return hit.value;
  for (const [key, entry] of cache) if (now - entry.at >= CACHE_MS) cache.delete(key);
  const value = read(address, currencies);
  cache.set(address, { at: now, value });
  return value;
}
