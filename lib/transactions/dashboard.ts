import type { PrismaClient } from '@/lib/generated/prisma/client';
import { formatScaled } from '@/lib/money/decimal';
import { TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';

export interface DailyVolume {
  day: string;
  currency: Currency;
  /** Base units, as decimal text (bigint does not survive JSON). */
  units: string;
  amount: string;
}

/** Received payments per UTC day and token over the last `days` days, for the dashboard's chart. */
export async function receivedVolumeByDay(prisma: PrismaClient, merchantId: number, days: number): Promise<DailyVolume[]> {
  const since = new Date(Date.now() - days * 86_400_000);
  const rows = await prisma.$queryRaw<{ day: string; currency: Currency; units: string }[]>`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency::text AS currency, SUM(amount_units)::text AS units
    FROM transactions
    WHERE merchant_id = ${merchantId} AND type = 'PAYMENT' AND created_at >= ${since}
    GROUP BY 1, 2 ORDER BY 1, 2`;
  return rows.map((r) => ({ ...r, amount: formatScaled(BigInt(r.units), TOKEN_DECIMALS) }));
}
