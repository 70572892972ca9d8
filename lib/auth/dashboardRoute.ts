import { ApiError } from '@/lib/http/errors';
import { merchantRoute, type Authenticate, type Handler, type RouteFn } from '@/lib/http/route';
import { sessionMerchant } from './session';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The session cookie is SameSite=Lax; changes are also refused when the browser
 * says the request came from another site, so no page elsewhere can drive a
 * signed-in merchant.
 */
const bySession: Authenticate = async (req) => {
  const site = req.headers.get('sec-fetch-site');
  if (!SAFE_METHODS.has(req.method) && site !== null && site !== 'same-origin') throw new ApiError(403, 'Cross-site request refused');
  const merchant = await sessionMerchant();
  if (!merchant) throw new ApiError(401, 'Not signed in');
  return merchant;
};

/** A dashboard JSON route behind the next-auth session. */
export function dashboardRoute<P = Record<string, never>>(handler: Handler<P>): RouteFn<P> {
  return merchantRoute(bySession, handler);
}
