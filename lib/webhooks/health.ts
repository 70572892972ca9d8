import type { PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';

/** How far back a failing endpoint is looked for: older failures are the delivery log's, not a notice's. */
const LOOKBACK_DAYS = 7;

export interface FailingEndpoint {
  url: string;
  /** Deliveries to it that failed since the last one it accepted (within the look-back). */
  failedInRow: number;
  /** The first of them, and its id (a run of failures is known by it). */
  since: Date;
  firstId: number;
  lastError: string | null;
  lastStatus: number | null;
}

/**
 * The merchant's webhook endpoints whose latest finished delivery failed (issue 38: a failing
 * endpoint was silent; retries are off by default, so such an event is not sent again). Derived
 * from the deliveries themselves: the notice goes the moment one is accepted again.
 */
export async function failingEndpoints(prisma: PrismaClient, merchantId: number): Promise<FailingEndpoint[]> {
  const rows = await queryRows<{ url: string; failed: number; since: Date; first_id: number; last_error: string | null; last_status: number | null }>(prisma, sql`
    SELECT d.url, count(*)::int AS failed, min(d.created_at) AS since, min(d.id) AS first_id,
           (array_agg(d.error ORDER BY d.id DESC))[1] AS last_error,
           (array_agg(d.response_status ORDER BY d.id DESC))[1] AS last_status
    FROM webhook_deliveries d
    WHERE d.merchant_id = ${merchantId} AND d.status = 'FAILED' AND d.created_at > now() - make_interval(days => ${LOOKBACK_DAYS})
      AND d.id > COALESCE((SELECT max(ok.id) FROM webhook_deliveries ok WHERE ok.merchant_id = d.merchant_id AND ok.url = d.url AND ok.status = 'DELIVERED'), 0)
    GROUP BY d.url
    ORDER BY min(d.created_at)`);
  return rows.map((r) => ({ url: r.url, failedInRow: r.failed, since: r.since, firstId: r.first_id, lastError: r.last_error, lastStatus: r.last_status }));
}
