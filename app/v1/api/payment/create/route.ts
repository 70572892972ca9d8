import { db } from '@/lib/db/client';
import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/http/validate';
import { createInvoiceSchema } from '@/lib/invoices/schemas';
import { invoiceJson } from '@/lib/invoices/serialize';
import { createInvoice } from '@/lib/invoices/service';
import { rateSource } from '@/lib/rates';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req, merchant }) => {
    const input = parseOrThrow(createInvoiceSchema, await readJson(req));
    return invoiceJson(await createInvoice(db(), rateSource(), merchant, input));
  },
});
