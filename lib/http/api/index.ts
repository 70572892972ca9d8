import { authenticateApiKey, type ApiCaller } from '@/lib/auth/authenticate';
import { db } from '@/lib/db/client';
import { Router } from '../router';
import { API_ROUTES } from './routes';
import { derived } from '@/lib/singletons';

export const API_BASE = '/v1/api';

/**
 * The merchant API of this process: the route table on the process's database client, its
 * callers authenticated by API key. Kept per table (`derived`): a router made from code is kept
 * per evaluation of that code (docs/architecture.md, "Process-wide state").
 */
export function merchantApi(): Router<ApiCaller> {
  return derived(API_ROUTES, () => new Router(API_ROUTES, { base: API_BASE, db, authenticate: (req, prisma, meta) => authenticateApiKey(prisma, req.headers.get('authorization'), meta.ip) }));
}
