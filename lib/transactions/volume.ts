import type { PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { tokenAmountText, type Currency } from '@/lib/money/tokens';

const DAY_MS = 86_400_000;

export interface DailyVolume {
  day: string;
  currency: Currency;
  /** Base units, as decimal text (bigint does not survive JSON). */
  units: string;
  amount: string;
}

export interface VolumeSeries {
  /** The UTC calendar days covered, oldest first ("YYYY-MM-DD"); the last is today. */
  days: string[];
  volumes: DailyVolume[];
}

/**
 * Received payments per UTC day and token over the last `count` calendar days,
 * for the dashboard's chart. The days are returned with the sums so the chart
 * draws exactly the days that were summed. A payment sent back to its payer
 * (AML refused it: REFUNDING, REFUNDED) was never the merchant's and is left out.
 */
export async function receivedVolumeByDay(prisma: PrismaClient, merchantId: number, count: number, now = new Date()): Promise<VolumeSeries> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - (count - 1) * DAY_MS);
  const until = new Date(today + DAY_MS);
  const days = Array.from({ length: count }, (_, i) => new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10));
  const rows = await queryRows<{ day: string; currency: Currency; units: string }>(prisma, sql`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency::text AS currency, SUM(amount_units)::text AS units
    FROM transactions
    WHERE merchant_id = ${merchantId} AND type = 'PAYMENT' AND created_at >= ${since} AND created_at < ${until}
      AND (payment_state IS NULL OR payment_state NOT IN ('REFUNDING', 'REFUNDED'))
    GROUP BY 1, 2 ORDER BY 1, 2`);
  return { days, volumes: rows.map((r) => ({ ...r, amount: tokenAmountText(BigInt(r.units)) })) };
}
