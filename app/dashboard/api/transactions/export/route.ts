import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { db } from '@/lib/db/client';
import { csvStream } from '@/lib/export/csv';
import { csvResponse } from '@/lib/http/csv';
import { queryObject } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { dashboardRowBatches, TRANSACTION_CSV_HEADER, transactionCsvRow } from '@/lib/transactions/csv';
import { dashboardTransactionsQuerySchema } from '@/lib/transactions/schemas';
import { transactionBatches } from '@/lib/transactions/service';

/** CSV of every transaction the list's filters match (limit and offset are ignored), streamed in batches. */
export const GET = dashboardRoute(async ({ url, merchant }) => {
  const { filter } = splitPage(parseOrThrow(dashboardTransactionsQuerySchema, queryObject(url)));
  return csvResponse('transactions', csvStream(TRANSACTION_CSV_HEADER, dashboardRowBatches(db(), transactionBatches(db(), merchant.id, filter, 'dashboard')), transactionCsvRow));
});
