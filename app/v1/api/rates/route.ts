import { apiRoute } from '@/lib/http/route';
import { rateSource } from '@/lib/rates';
import { rateJson } from '@/lib/rates/service';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  GET: async ({ url }) => rateJson(rateSource(), url.searchParams.get('currency')),
});
