import { ApiError, jsonResponse, notFound } from '@/lib/http/errors';
import { toErrorResponse, type ApiContext } from '@/lib/http/route';
import { sessionMerchant } from './session';

type Handler<P> = (ctx: ApiContext<P>) => Promise<unknown>;
type RouteFn<P> = (req: Request, ctx: { params: Promise<P> }) => Promise<Response>;

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * A dashboard JSON route behind the next-auth session. The session cookie is
 * SameSite=Lax; changes are also refused when the browser says the request
 * came from another site, so no page elsewhere can drive a signed-in merchant.
 */
export function dashboardRoute<P = Record<string, never>>(handler: Handler<P>): RouteFn<P> {
  return async (req, ctx) => {
    try {
      const site = req.headers.get('sec-fetch-site');
      if (!SAFE_METHODS.has(req.method) && site !== null && site !== 'same-origin') throw new ApiError(403, 'Cross-site request refused');
      const merchant = await sessionMerchant();
      if (!merchant) throw new ApiError(401, 'Not signed in');
      const result = await handler({ req, url: new URL(req.url), merchant, params: await ctx.params });
      return result instanceof Response ? result : jsonResponse(result);
    } catch (err) {
      return toErrorResponse(err);
    }
  };
}

/** A numeric id from the path; anything else is the resource's 404, as for an unknown id. */
export function idParam(value: string, notFoundDetail: string): number {
  if (!/^\d{1,9}$/.test(value)) throw notFound(notFoundDetail);
  return Number(value);
}
