import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { publicRoute } from '@/lib/http/publicRoute';
import { claimRefund } from '@/lib/refunds/claim';
import { refundClaimBodySchema, refundPageParamsSchema, refundPageQuerySchema } from '@/lib/refunds/schemas';

export const dynamic = 'force-dynamic';

/**
 * The customer enters the address a refund goes to, once (docs/refunds.md). The body is read by
 * claimRefund after the link's key is checked, so a wrong link says only that it opens nothing.
 */
export const POST = publicRoute(
  { params: refundPageParamsSchema, query: refundPageQuerySchema, body: refundClaimBodySchema, headers: { 'cache-control': 'no-store', 'x-robots-tag': 'noindex' } },
  async ({ params, query, body }) => claimRefund(db(), params.id, query.k ?? null, body),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
