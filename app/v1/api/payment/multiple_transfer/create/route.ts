import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { apiCaller, checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { createPayoutResponse } from '@/lib/payouts/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req, merchant }) => {
    const body = await readJson(req);
    await checkInvoiceCreationRate(apiCaller(req));
    return createPayoutResponse(merchant, body);
  },
});
