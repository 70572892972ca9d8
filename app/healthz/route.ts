import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import { jsonResponse } from '@/lib/http/errors';
import { checkHealth } from '@/lib/operations/health';
import { restartCounts } from '@/lib/operations/restarts';

export const dynamic = 'force-dynamic';

/**
 * 200 when the database answers and the worker is scanning (docs/operations.md);
 * 503 with the reason otherwise; both with the processes restarted so far. Public, so the database's own error text
 * (hosts, users) goes to the log, not the reply.
 */
export async function GET() {
  const c = config();
  let health;
  try {
    health = await checkHealth(db(), { workerStaleSeconds: c.WORKER_STALE_SECONDS, requireWorker: c.HEALTHZ_REQUIRE_WORKER });
  } catch (err) {
    console.error('healthz: database unreachable', err);
    return jsonResponse({ status: 'unavailable', detail: 'database unreachable' }, 503);
  }
  // Processes the runner or the web cluster restarted since start (docs/operations.md, "Supervision").
  const restarts = restartCounts();
  if (!health.ok) return jsonResponse({ status: 'unavailable', detail: health.detail, restarts }, 503);
  return jsonResponse({ status: 'ok', worker: health.worker, last_scan_age_seconds: health.lastScanAgeSeconds, restarts });
}
