import type { z } from 'zod';
import { AppError } from '@/lib/errors';
import { parseOrThrow } from '@/lib/validation';
import { REQUEST_ID_HEADER } from '@/lib/log';
import { jsonResponse } from './errors';
import { readJson } from './request';
import { toErrorResponse, type RouteFn } from './route';

export interface PublicContext<P, Q, B> {
  req: Request;
  params: P;
  query: Q;
  body: B;
}

export interface PublicRouteSpec<PS extends z.ZodType, QS extends z.ZodType | undefined, BS extends z.ZodType | undefined> {
  params: PS;
  /** The query string, each name to its first value (as `URLSearchParams.get` reads it). */
  query?: QS;
  /** The JSON body, or `undefined` given to the schema when there is none or it is not JSON. */
  body?: BS;
  /** Sent with every answer, an error's too (the status poll's `no-store`, `noindex`). */
  headers?: Record<string, string>;
  /** The status of a successful answer. */
  status?: number;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * Parsed by its schema. parseOrThrow also refuses NUL characters, which a public schema may accept
 * (a link key holding one is only a wrong key, answered with the limited view), so it is asked
 * only once the schema itself refuses, to name each bad field in the 400.
 */
function parse<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const result = schema.safeParse(data);
  return result.success ? result.data : parseOrThrow(schema, data);
}

/**
 * The JSON body, read as the API reads it (at most 1 MiB: a larger one is the 413, never read
 * whole), or `undefined` when it is no JSON, for the schema to judge.
 */
async function bodyOf(req: Request): Promise<unknown> {
  try {
    return await readJson(req);
  } catch (err) {
    if (err instanceof AppError && err.code === 'INVALID_INPUT') return undefined;
    throw err;
  }
}

/**
 * A route of the public payment page (`/payment/<id>/...`): no credentials (server.ts rate-limits
 * these paths per address), the path, query and body parsed with the operation's schemas, the
 * handler's value answered as JSON, an AppError as the `{"detail": ...}` body of its code, and
 * anything else logged and answered as the API's JSON 500, not Next's empty one.
 */
export function publicRoute<PS extends z.ZodType, QS extends z.ZodType | undefined = undefined, BS extends z.ZodType | undefined = undefined>(
  spec: PublicRouteSpec<PS, QS, BS>,
  handler: (ctx: PublicContext<z.output<PS>, Parsed<QS>, Parsed<BS>>) => Promise<unknown>,
): RouteFn<z.input<PS>> {
  return async (req, ctx) => {
    try {
      const params = parse(spec.params, await ctx.params);
      const url = new URL(req.url);
      const query = (spec.query ? parse(spec.query, Object.fromEntries([...url.searchParams.keys()].map((k) => [k, url.searchParams.get(k)]))) : undefined) as Parsed<QS>;
      const body = (spec.body ? parse(spec.body, await bodyOf(req)) : undefined) as Parsed<BS>;
      return jsonResponse(await handler({ req, params, query, body }), spec.status ?? 200, spec.headers);
    } catch (err) {
      const response = toErrorResponse(err, req.headers.get(REQUEST_ID_HEADER));
      for (const [name, value] of Object.entries(spec.headers ?? {})) response.headers.set(name, value);
      return response;
    }
  };
}
