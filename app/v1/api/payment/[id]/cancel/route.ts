import { db } from '@/lib/db/client';
import { notFound } from '@/lib/http/errors';
import { apiRoute } from '@/lib/http/route';
import { invoiceIdSchema } from '@/lib/invoices/schemas';
import { invoiceJson } from '@/lib/invoices/serialize';
import { cancelInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute<{ id: string }>({
  DELETE: async ({ params, merchant }) => {
    const id = invoiceIdSchema.safeParse(params.id);
    if (!id.success) throw notFound(INVOICE_NOT_FOUND);
    return invoiceJson(await cancelInvoice(db(), merchant.id, id.data));
  },
});
