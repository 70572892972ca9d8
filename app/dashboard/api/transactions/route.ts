import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { db } from '@/lib/db/client';
import { pageEnvelope } from '@/lib/http/pagination';
import { queryObject } from '@/lib/http/request';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { dashboardTransactionsQuerySchema } from '@/lib/transactions/schemas';
import { dashboardTransactionRows } from '@/lib/transactions/releases';
import { listTransactions } from '@/lib/transactions/service';

/** The API's GET /transaction/list, behind the dashboard session, with the energy pool's operations too (which the API leaves out, docs/api.md), and what became of released held funds. */
export const GET = dashboardRoute(async ({ url, merchant }) => {
  const { filter, page } = splitPage(parseOrThrow(dashboardTransactionsQuerySchema, queryObject(url)));
  const { count, rows } = await listTransactions(db(), merchant.id, filter, page, 'dashboard');
  return pageEnvelope(url, page, count, await dashboardTransactionRows(db(), rows));
});

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
