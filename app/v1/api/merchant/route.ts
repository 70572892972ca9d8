import { apiRoute } from '@/lib/http/route';
import { merchantJson } from '@/lib/merchants/serialize';

export const { GET, POST, PUT, PATCH, DELETE } = apiRoute({
  GET: async ({ merchant }) => merchantJson(merchant),
});
