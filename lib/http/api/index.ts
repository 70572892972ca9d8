import { authenticateApiKey } from '@/lib/auth/authenticate';
import { db } from '@/lib/db/client';
import { ApiRouter } from './router';
import { API_ROUTES } from './routes';
import { singleton } from '@/lib/singletons';

/** The merchant API of this process: the route table on the process's database client. */
export const merchantApi = (): ApiRouter => singleton('merchantApi', () => new ApiRouter(API_ROUTES, { db, authenticate: authenticateApiKey }));

export { API_BASE, ApiRouter, type RequestMeta } from './router';
