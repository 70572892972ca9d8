import { db } from '@/lib/db/client';
import { pageEnvelope } from '@/lib/http/pagination';
import { queryObject } from '@/lib/http/request';
import { apiRoute } from '@/lib/http/route';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { invoiceJson } from '@/lib/invoices/serialize';
import { listInvoices } from '@/lib/invoices/list';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  GET: async ({ url, merchant }) => {
    const { filter, page } = splitPage(parseOrThrow(listInvoicesQuerySchema, queryObject(url)));
    const { count, rows } = await listInvoices(db(), merchant, filter, page);
    return pageEnvelope(url, page, count, rows.map(invoiceJson));
  },
});
