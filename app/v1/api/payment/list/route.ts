import { db } from '@/lib/db/client';
import { pageEnvelope } from '@/lib/http/pagination';
import { queryObject } from '@/lib/http/request';
import { apiRoute } from '@/lib/http/route';
import { parseOrThrow } from '@/lib/validation';
import { listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { invoiceJson } from '@/lib/invoices/serialize';
import { listInvoices } from '@/lib/invoices/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  GET: async ({ url, merchant }) => {
    const query = parseOrThrow(listInvoicesQuerySchema, queryObject(url));
    const { count, rows } = await listInvoices(db(), merchant, query, query);
    return pageEnvelope(url, query, count, rows.map(invoiceJson));
  },
});
