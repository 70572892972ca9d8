import ipaddr from 'ipaddr.js';
import type pg from 'pg';

/**
 * A rate limit per key, counted in PostgreSQL (table `rate_limits`, migration 0067), so it holds
 * across every web process on every host that shares the database (issue 27, finding 3: counted
 * in each process's memory, one key had 1,886 invoices accepted in 30 s against 600 a minute).
 *
 * The limit is the token bucket it always was: `perMinute` requests a minute on average, bursts
 * of up to `perMinute` at once. It is kept as GCRA, which stores one number per key, the
 * "theoretical arrival time" (`tat_us`): each request moves it one interval (a minute /
 * `perMinute`) later, and a request is refused while that would put it more than a whole burst
 * ahead of now. A take is one atomic upsert, timed by the database's clock (hosts' clocks may
 * differ); a key whose time has passed holds no state (a full bucket), so such rows are deleted.
 */
export class RateLimiter {
  private readonly intervalUs: bigint;
  private readonly burstUs: bigint;
  private nextCleanAt = 0;

  constructor(
    /** Prefixes the keys, so two limits never share one. */
    private readonly name: string,
    private readonly perMinute: number,
    private readonly pool: () => pg.Pool,
  ) {
    this.intervalUs = BigInt(Math.max(1, Math.round(60_000_000 / perMinute)));
    this.burstUs = this.intervalUs * BigInt(perMinute);
  }

  /** Takes one request for `key`: null when allowed, else the seconds until one is free. */
  async take(key: string): Promise<number | null> {
    const { rows } = await this.pool().query<{ taken: boolean; now_us: string; tat_us: string | null }>({
      name: 'rate-limit-take',
      text: `
        WITH clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS us),
        taken AS (
          INSERT INTO rate_limits AS r (key, tat_us) SELECT $1, clock.us + $2::bigint FROM clock
          ON CONFLICT (key) DO UPDATE SET tat_us = GREATEST(r.tat_us, (SELECT us FROM clock)) + $2::bigint
            WHERE GREATEST(r.tat_us, (SELECT us FROM clock)) + $2::bigint - $3::bigint <= (SELECT us FROM clock)
          RETURNING 1
        )
        SELECT EXISTS (SELECT 1 FROM taken) AS taken, (SELECT us FROM clock)::text AS now_us,
               (SELECT tat_us FROM rate_limits WHERE key = $1)::text AS tat_us`,
      values: [`${this.name}:${key}`, this.intervalUs.toString(), this.burstUs.toString()],
    });
    const row = rows[0]!;
    const nowUs = BigInt(row.now_us);
    this.cleanSometimes(nowUs);
    if (row.taken) return null;
    // Refused: the next request fits once the stored time is less than a burst minus one interval ahead.
    const tatUs = row.tat_us === null ? nowUs : BigInt(row.tat_us);
    const waitUs = (tatUs > nowUs ? tatUs : nowUs) + this.intervalUs - this.burstUs - nowUs;
    return Math.max(1, Math.ceil(Number(waitUs) / 1_000_000));
  }

  /**
   * At most once a minute per limiter: deletes keys whose time has passed (full buckets), so an
   * address sweep leaves no rows behind. Best effort; a failure only leaves them to the next one.
   */
  private cleanSometimes(nowUs: bigint): void {
    const nowMs = Number(nowUs / 1000n);
    if (nowMs < this.nextCleanAt) return;
    this.nextCleanAt = nowMs + 60_000;
    this.pool()
      .query({ name: 'rate-limit-clean', text: 'DELETE FROM rate_limits WHERE tat_us < $1::bigint', values: [nowUs.toString()] })
      .catch(() => undefined);
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
