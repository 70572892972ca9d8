import { db } from '@/lib/db/client';
import { jsonResponse } from '@/lib/http/errors';

export const dynamic = 'force-dynamic';

/** Public, so the database's own error text (hosts, users) goes to the log, not the reply. */
export async function GET() {
  try {
    await db().$queryRaw`SELECT 1`;
    return jsonResponse({ status: 'ok' });
  } catch (err) {
    console.error('healthz: database unreachable', err);
    return jsonResponse({ status: 'unavailable', detail: 'database unreachable' }, 503);
  }
}
