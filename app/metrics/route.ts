import { createHash, timingSafeEqual } from 'node:crypto';
import { chain } from '@/lib/chain';
import { gasWalletAddress } from '@/lib/merchants/accounts';
import { config } from '@/lib/config';
import { db } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { errorResponse } from '@/lib/http/errors';
import { renderMetrics } from '@/lib/operations/metrics';

export const dynamic = 'force-dynamic';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** With METRICS_TOKEN set, only `Authorization: Bearer <token>` may read (docs/operations.md). */
function authorized(req: Request, token: string | undefined): boolean {
  if (token === undefined) return true;
  const given = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

export async function GET(req: Request) {
  const c = config();
  if (!authorized(req, c.METRICS_TOKEN)) return errorResponse(new AppError('UNAUTHORIZED', 'A valid metrics token is required.'), { 'www-authenticate': 'Bearer' });
  const { contentType, body } = await renderMetrics({ prisma: db(), chain: chain(), gasWallet: await gasWalletAddress(db()) });
  return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}
