import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { db } from '@/lib/db/client';
import { pageEnvelope } from '@/lib/http/pagination';
import { queryObject, readJson } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { createInvoiceSchema, listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { invoiceJson } from '@/lib/invoices/serialize';
import { createInvoice } from '@/lib/invoices/service';
import { listInvoices } from '@/lib/invoices/list';
import { rateSource } from '@/lib/rates';

export const GET = dashboardRoute(async ({ url, merchant }) => {
  const { filter, page } = splitPage(parseOrThrow(listInvoicesQuerySchema, queryObject(url)));
  const { count, rows } = await listInvoices(db(), merchant, filter, page);
  return pageEnvelope(url, page, count, rows.map(invoiceJson));
});

export const POST = dashboardRoute(async ({ req, merchant }) => {
  const input = parseOrThrow(createInvoiceSchema, await readJson(req));
  await checkInvoiceCreationRate(`merchant:${merchant.id}`);
  return invoiceJson(await createInvoice(db(), rateSource(), merchant, input));
});

// Any other method: a JSON 405, not Next's empty one.
export const { PUT, PATCH, DELETE } = otherMethods(['GET', 'POST']);
