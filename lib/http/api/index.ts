import { authenticateApiKey } from '@/lib/auth/authenticate';
import { db } from '@/lib/db/client';
import { ApiRouter } from './router';
import { API_ROUTES } from './routes';
import { singleton } from '@/lib/singletons';

/**
 * The merchant API of this process: the route table on the process's database client. Kept per
 * table: under `npm run dev` Next evaluates routes.ts again after a change, and the new table
 * gets its own router, where one router for the process would keep serving the old handlers.
 */
export function merchantApi(): ApiRouter {
  const routers = singleton('merchantApis', () => new WeakMap());
  let router = routers.get(API_ROUTES);
  if (!router) routers.set(API_ROUTES, (router = new ApiRouter(API_ROUTES, { db, authenticate: authenticateApiKey })));
  return router;
}

export { API_BASE, ApiRouter, type RequestMeta } from './router';
