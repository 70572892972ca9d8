import { apiRoute } from '@/lib/http/route';
import { readJson } from '@/lib/http/request';
import { payoutEstimateResponse } from '@/lib/payouts/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  POST: async ({ req }) => payoutEstimateResponse(await readJson(req)),
});
