import { db } from '@/lib/db/client';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam, readJson } from '@/lib/http/request';
import { otherMethods } from '@/lib/http/route';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { estimateRefund } from '@/lib/refunds/service';

/** What a refund would cost before it is made: the dialog shows it before the merchant confirms. Creates nothing. */
export const POST = dashboardRoute<{ id: string }>(async ({ req, params, merchant }) => estimateRefund(db(), merchant, idParam(params.id, INVOICE_NOT_FOUND), await readJson(req)));

export const { GET, PUT, PATCH, DELETE } = otherMethods(['POST']);
