import { db } from '@/lib/db/client';
import { textParam } from '@/lib/http/request';
import { apiRoute } from '@/lib/http/route';
import { transactionJson } from '@/lib/transactions/serialize';
import { getTransaction, TRANSACTION_NOT_FOUND } from '@/lib/transactions/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute<{ trn_hash: string }>({
  GET: async ({ params, merchant }) => transactionJson(await getTransaction(db(), merchant.id, textParam(params.trn_hash, TRANSACTION_NOT_FOUND))),
});
