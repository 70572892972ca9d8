import { db } from '@/lib/db/client';
import { derived } from '@/lib/singletons';
import { Router } from '../router';
import { authenticateSession, type DashboardCaller } from './authenticate';
import { DASHBOARD_ROUTES } from './routes';

export const DASHBOARD_API_BASE = '/dashboard/api';

/**
 * The dashboard's JSON API of this process: its route table on the process's database client,
 * served by the same router as the merchant API, its callers authenticated by session. Kept per
 * table (`derived`), as merchantApi is.
 */
export function dashboardApi(): Router<DashboardCaller> {
  return derived(DASHBOARD_ROUTES, () => new Router(DASHBOARD_ROUTES, { base: DASHBOARD_API_BASE, db, authenticate: authenticateSession }));
}
