import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { createPayoutResponse } from '@/lib/payouts/api';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req, merchant }) => createPayoutResponse(merchant, await readJson(req)),
});
