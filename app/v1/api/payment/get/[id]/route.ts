import { db } from '@/lib/db/client';
import { idParam } from '@/lib/http/request';
import { apiRoute } from '@/lib/http/route';
import { invoiceJson } from '@/lib/invoices/serialize';
import { getInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute<{ id: string }>({
  GET: async ({ params, merchant }) => invoiceJson(await getInvoice(db(), merchant, idParam(params.id, INVOICE_NOT_FOUND))),
});
