import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam } from '@/lib/http/request';
import { db } from '@/lib/db/client';
import { invoiceJson } from '@/lib/invoices/serialize';
import { cancelInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';

export const POST = dashboardRoute<{ id: string }>(async ({ params, merchant }) => {
  return invoiceJson(await cancelInvoice(db(), merchant, idParam(params.id, INVOICE_NOT_FOUND)));
});

// Any other method: a JSON 405, not Next's empty one.
export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
