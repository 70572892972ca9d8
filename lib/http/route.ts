import { AppError } from '@/lib/errors';
import { errorResponse } from './errors';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

type NextRouteContext<P> = { params: Promise<P> };
export type RouteFn<P> = (req: Request, ctx: NextRouteContext<P>) => Promise<Response>;

/** Any failure as the error response: an AppError as its code says, anything else logged and a 500. */
export function toErrorResponse(err: unknown, requestId: string | null): Response {
  if (err instanceof AppError) return errorResponse(err);
  // server.ts sets the request id; console goes to the JSON log there.
  console.error(`Unhandled API error (request ${requestId ?? 'unknown'})`, err);
  return errorResponse(new AppError('INTERNAL', 'Internal server error'));
}

/** The API's 405: its JSON shape with an `Allow` header, where Next would answer an empty 405. */
export function methodNotAllowed(method: string, allow: string): Response {
  return errorResponse(new AppError('METHOD_NOT_ALLOWED', `Method "${method}" not allowed.`), { allow });
}

/**
 * Handlers for the methods a route module does not implement: 405 in the
 * API's JSON shape with an `Allow` header, where Next would answer an empty 405.
 */
export function otherMethods(implemented: readonly Method[]): Record<Method, RouteFn<unknown>> {
  const allow = implemented.join(', ');
  const refuse: RouteFn<unknown> = async (req) => methodNotAllowed(req.method, allow);
  return Object.fromEntries(METHODS.filter((m) => !implemented.includes(m)).map((m) => [m, refuse])) as Record<Method, RouteFn<unknown>>;
}
