import { db } from '@/lib/db/client';
import { apiRoute } from '@/lib/http/route';
import { transactionJson } from '@/lib/transactions/serialize';
import { getTransaction } from '@/lib/transactions/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute<{ trn_hash: string }>({
  GET: async ({ params, merchant }) => transactionJson(await getTransaction(db(), merchant.id, params.trn_hash)),
});
