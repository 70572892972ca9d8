import { authenticateApiKey } from '@/lib/auth/authenticate';
import { db } from '@/lib/db/client';
import { ApiRouter } from './router';
import { API_ROUTES } from './routes';
import { derived } from '@/lib/singletons';

/**
 * The merchant API of this process: the route table on the process's database client. Kept per
 * table (`derived`): under `npm run dev` Next evaluates routes.ts again after a change, and the
 * new table gets its own router, where one router for the process would keep serving the old handlers.
 */
export function merchantApi(): ApiRouter {
  return derived(API_ROUTES, () => new ApiRouter(API_ROUTES, { db, authenticate: authenticateApiKey }));
}

export { API_BASE, ApiRouter, type RequestMeta } from './router';
