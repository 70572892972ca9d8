import { requireRecentAuth } from '@/lib/auth/reauth';
import { db } from '@/lib/db/client';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam, readJson } from '@/lib/http/request';
import { otherMethods } from '@/lib/http/route';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { createRefund, listRefunds, refundableAmounts } from '@/lib/refunds/service';

/** An invoice's refunds, and what is left to refund in each token (docs/dashboard.md, "Refunds"). */
export const GET = dashboardRoute<{ id: string }>(async ({ params, merchant }) => {
  const id = idParam(params.id, INVOICE_NOT_FOUND);
  const [results, refundable] = await Promise.all([listRefunds(db(), merchant, id), refundableAmounts(db(), merchant, id)]);
  return { results, refundable };
});

/**
 * A refund, as the API's `POST /payment/{id}/refund` makes it (docs/refunds.md). It sends money to
 * an address, or lets whoever holds a link say where: a recent sign-in or the password again.
 */
export const POST = dashboardRoute<{ id: string }>(async ({ req, params, merchant }) => {
  const id = idParam(params.id, INVOICE_NOT_FOUND);
  const body = await readJson(req);
  await requireRecentAuth(req, merchant);
  return createRefund(db(), merchant, id, body);
});

export const { PUT, PATCH, DELETE } = otherMethods(['GET', 'POST']);
