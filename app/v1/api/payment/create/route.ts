import { db } from '@/lib/db/client';
import { idempotent } from '@/lib/http/idempotency';
import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { createInvoiceSchema } from '@/lib/invoices/schemas';
import { apiCaller, checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { invoiceJson } from '@/lib/invoices/serialize';
import { createInvoice } from '@/lib/invoices/service';
import { isPayoutEstimateBody, payoutEstimateResponse } from '@/lib/payouts/service';
import { rateSource } from '@/lib/rates';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req, merchant }) => {
    const body = await readJson(req);
    if (isPayoutEstimateBody(body)) return payoutEstimateResponse(db(), body);
    // With an Idempotency-Key, a repeat gets the first answer instead of a second invoice (docs/api.md).
    return idempotent(req, merchant, body, async () => {
      const input = parseOrThrow(createInvoiceSchema, body);
      await checkInvoiceCreationRate(apiCaller(req));
      return invoiceJson(await createInvoice(db(), rateSource(), merchant, input));
    });
  },
});
