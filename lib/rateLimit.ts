import ipaddr from 'ipaddr.js';

/**
 * A token bucket per key, in the memory of one web process: `perMinute`
 * requests a minute on average, bursts of up to `perMinute` at once. Limits
 * are per process; behind several web processes each enforces its own share.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 50_000,
  ) {}

  /** Takes one token for `key`: null when allowed, else the seconds until one is free. */
  take(key: string): number | null {
    const now = this.now();
    const rate = this.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.prune(now);
    return null;
  }

  /** Drops buckets that have refilled (they hold no state worth keeping), so many keys cannot grow memory without bound. */
  private prune(now: number): void {
    const rate = this.perMinute / 60_000;
    for (const [key, b] of this.buckets) if (b.tokens + (now - b.at) * rate >= this.perMinute) this.buckets.delete(key);
    // Still too many: an address sweep; forget the oldest half rather than grow.
    if (this.buckets.size > this.maxKeys) [...this.buckets.keys()].slice(0, this.buckets.size / 2).forEach((k) => this.buckets.delete(k));
  }
}

/**
 * The key an address is limited under: an IPv4 address itself, an IPv6 address
 * by its /64, since one subscriber usually holds a whole /64 and could otherwise
 * rotate through 2^64 addresses.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip); // IPv4-mapped IPv6 reads as the IPv4 address
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
