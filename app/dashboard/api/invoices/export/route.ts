import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { db } from '@/lib/db/client';
import { csvStream } from '@/lib/export/csv';
import { csvResponse } from '@/lib/http/csv';
import { queryObject } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { INVOICE_CSV_HEADER, invoiceCsvRow } from '@/lib/invoices/csv';
import { listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { invoiceBatches } from '@/lib/invoices/list';

/** CSV of every invoice the list's filters match (limit and offset are ignored), streamed in batches. */
export const GET = dashboardRoute(async ({ url, merchant }) => {
  const { filter } = splitPage(parseOrThrow(listInvoicesQuerySchema, queryObject(url)));
  return csvResponse('invoices', csvStream(INVOICE_CSV_HEADER, invoiceBatches(db(), merchant, filter), invoiceCsvRow));
});
