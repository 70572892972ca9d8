import { db } from '@/lib/db/client';
import { idempotent } from '@/lib/http/idempotency';
import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { apiCaller, checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { createPayoutResponse } from '@/lib/payouts/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req, merchant }) => {
    const body = await readJson(req);
    // With an Idempotency-Key, a repeat gets the first answer instead of a second payout (docs/api.md).
    return idempotent(req, merchant, body, async () => {
      await checkInvoiceCreationRate(apiCaller(req));
      return createPayoutResponse(db(), merchant, body);
    });
  },
});
