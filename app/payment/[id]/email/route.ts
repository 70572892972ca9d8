import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { publicRoute } from '@/lib/http/publicRoute';
import { customerEmailRequestSchema, setCustomerEmail } from '@/lib/invoices/customerEmail';
import { paymentPageParamsSchema, paymentStatusQuerySchema } from '@/lib/invoices/schemas';

export const dynamic = 'force-dynamic';

/** The customer's optional e-mail for a receipt and a refund's claim link (docs/payment-page.md); the paymentURL's key is needed. */
export const POST = publicRoute(
  { params: paymentPageParamsSchema, query: paymentStatusQuerySchema, body: customerEmailRequestSchema, headers: { 'cache-control': 'no-store', 'x-robots-tag': 'noindex' } },
  async ({ params, query, body }) => setCustomerEmail(db(), params.id, query.k ?? null, body),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
