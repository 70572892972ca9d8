import { db } from '@/lib/db/client';
import { otherMethods } from '@/lib/http/route';
import { publicRoute } from '@/lib/http/publicRoute';
import { payInvoiceFromDevnet } from '@/lib/invoices/devnetPay';
import { devnetPayBodySchema, paymentPageParamsSchema } from '@/lib/invoices/schemas';

export const dynamic = 'force-dynamic';

/**
 * Development only: pays the invoice from the devnet faucet, so a person can
 * try the whole flow without a wallet. On any other chain the route does not exist.
 */
export const POST = publicRoute({ params: paymentPageParamsSchema, body: devnetPayBodySchema, status: 202 }, async ({ params, body }) =>
  payInvoiceFromDevnet(db(), params.id, body?.currency ?? null),
);

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
