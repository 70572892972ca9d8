import { db } from '@/lib/db/client';
import { jsonResponse } from '@/lib/http/errors';

export const dynamic = 'force-dynamic';

export async function GET() {
  try {
    await db().$queryRaw`SELECT 1`;
    return jsonResponse({ status: 'ok' });
  } catch (err) {
    return jsonResponse({ status: 'unavailable', detail: (err as Error).message }, 503);
  }
}
