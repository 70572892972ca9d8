import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { publicRoute } from '@/lib/http/publicRoute';
import { loadRefundClaim } from '@/lib/refunds/claim';
import { refundPageParamsSchema, refundPageQuerySchema } from '@/lib/refunds/schemas';

export const dynamic = 'force-dynamic';

/** Public with the claim link's key: the claim page polls it while the refund goes out (docs/refunds.md). */
export const GET = publicRoute(
  { params: refundPageParamsSchema, query: refundPageQuerySchema, headers: { 'cache-control': 'no-store', 'x-robots-tag': 'noindex' } },
  async ({ params, query }) => loadRefundClaim(db(), params.id, query.k ?? null),
);

export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
