import { otherMethods } from '@/lib/http/route';
import { notFound } from '@/lib/errors';
import { errorResponse, jsonResponse } from '@/lib/http/errors';
import { INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { loadPublicInvoice } from '@/lib/invoices/loadPublic';

export const dynamic = 'force-dynamic';

/** Public, keyed by invoice id: the payment page polls it for live status. */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const view = await loadPublicInvoice((await ctx.params).id, new URL(req.url).searchParams.get('k'));
  const headers = { 'cache-control': 'no-store', 'x-robots-tag': 'noindex' };
  return view ? jsonResponse(view, 200, headers) : errorResponse(notFound(INVOICE_NOT_FOUND), headers);
}

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
