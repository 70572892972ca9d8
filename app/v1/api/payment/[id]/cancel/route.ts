import { db } from '@/lib/db/client';
import { idParam } from '@/lib/http/request';
import { apiRoute } from '@/lib/http/route';
import { invoiceJson } from '@/lib/invoices/serialize';
import { cancelInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute<{ id: string }>({
  DELETE: async ({ params, merchant }) => invoiceJson(await cancelInvoice(db(), merchant, idParam(params.id, INVOICE_NOT_FOUND))),
});
