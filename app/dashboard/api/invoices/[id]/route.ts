import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam } from '@/lib/http/request';
import { db } from '@/lib/db/client';
import { invoiceDetail } from '@/lib/invoices/detail';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';

/** One invoice with everything that happened to it: payments, sends and webhooks (lib/invoices/detail.ts). */
export const GET = dashboardRoute<{ id: string }>(async ({ params, merchant }) => invoiceDetail(db(), merchant, idParam(params.id, INVOICE_NOT_FOUND)));

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
