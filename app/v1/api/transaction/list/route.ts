import { db } from '@/lib/db/client';
import { pageEnvelope } from '@/lib/http/pagination';
import { queryObject } from '@/lib/http/request';
import { apiRoute } from '@/lib/http/route';
import { parseOrThrow } from '@/lib/validation';
import { splitPage } from '@/lib/schemas/page';
import { listTransactionsQuerySchema } from '@/lib/transactions/schemas';
import { transactionJson } from '@/lib/transactions/serialize';
import { listTransactions } from '@/lib/transactions/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  GET: async ({ url, merchant }) => {
    const { filter, page } = splitPage(parseOrThrow(listTransactionsQuerySchema, queryObject(url)));
    const { count, rows } = await listTransactions(db(), merchant.id, filter, page);
    return pageEnvelope(url, page, count, rows.map(transactionJson));
  },
});
