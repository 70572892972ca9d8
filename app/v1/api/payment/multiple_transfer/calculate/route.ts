import { db } from '@/lib/db/client';
import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { payoutEstimateResponse } from '@/lib/payouts/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req }) => payoutEstimateResponse(db(), await readJson(req)),
});
