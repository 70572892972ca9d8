import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { publicRoute } from '@/lib/http/publicRoute';
import { notFound } from '@/lib/errors';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { loadPublicInvoice } from '@/lib/invoices/loadPublic';
import { paymentPageParamsSchema, paymentStatusQuerySchema } from '@/lib/invoices/schemas';

export const dynamic = 'force-dynamic';

/** Public, keyed by invoice id: the payment page polls it for live status. */
export const GET = publicRoute(
  { params: paymentPageParamsSchema, query: paymentStatusQuerySchema, headers: { 'cache-control': 'no-store', 'x-robots-tag': 'noindex' } },
  async ({ params, query }) => {
    const view = await loadPublicInvoice(db(), params.id, query.k ?? null);
    if (!view) throw notFound(INVOICE_NOT_FOUND);
    return view;
  },
);

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
