import type { ApiCaller } from '@/lib/auth/authenticate';
import type { PrismaClient } from '@/lib/db/client';
import { notFound } from '@/lib/errors';
import { errorResponse, jsonResponse } from '../errors';
import { methodNotAllowed, toErrorResponse } from '../route';

/**
 * The merchant API's own HTTP layer (issue 25): an explicit table of the spec's routes
 * (routes.ts), matched here, with a typed context built once per request. Web `Request` in,
 * `Response` out, nothing from Next: server.ts calls it straight from its Node handler
 * (node.ts), and the one Next route under app/v1/api (`[[...path]]`) calls the same function,
 * for `npm run dev`'s hot reload and API_ROUTER=next.
 *
 * What the table does not name is answered from it too: an unknown path is a JSON 404 (before
 * authentication: a guess at a path learns nothing else), OPTIONS lists the path's methods, HEAD
 * runs GET without its body, and a known path with another method is a JSON 405 with `Allow`,
 * after authentication (as in Django REST framework, which the spec follows).
 */

export const API_BASE = '/v1/api';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the edge in front (server.ts, or Next's route) knows of a request before it is routed. */
export interface RequestMeta {
  /** The caller's address, from the socket or trusted proxies (server.ts); null when unknown. */
  ip: string | null;
  /** The request id in every log line about it, and in its answer's X-Request-Id. */
  requestId: string;
}

/** Everything a handler is given: built once per request, typed, not read back from headers. */
export interface ApiRequestContext<P> extends RequestMeta, ApiCaller {
  req: Request;
  url: URL;
  params: P;
  /** The database client of this process (lib/db/client.ts), for the handler to pass to lib/. */
  db: PrismaClient;
}

export type ApiHandler<P> = (ctx: ApiRequestContext<P>) => Promise<unknown>;

/** `/payment/get/:id` → `{ id: string }`: a route's params, from its path pattern. */
export type ParamsOf<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<string, never>;

export interface ApiRoute {
  method: Method;
  /** Below API_BASE: fixed segments and `:name` params, e.g. `/payment/get/:id`. */
  path: string;
  handler: ApiHandler<Record<string, string>>;
}

/** One row of the table, its handler's params typed from its path. */
export function route<Path extends string>(method: Method, path: Path, handler: ApiHandler<ParamsOf<Path>>): ApiRoute {
  return { method, path, handler: handler as ApiHandler<Record<string, string>> };
}

type Segment = { param: string } | { fixed: string };

interface PathEntry {
  segments: Segment[];
  /** A fixed segment ranks before a param at the same place: `/transaction/list` before `/transaction/:trn_hash`. */
  rank: string;
  handlers: Partial<Record<Method, ApiHandler<Record<string, string>>>>;
  /** The path's methods for `Allow`: its own, HEAD with GET, and OPTIONS. */
  allow: string;
}

/** A request's place in the table (ApiRouter.resolve). */
export interface Resolved {
  readonly entry: PathEntry;
  readonly params: Record<string, string>;
}

/** What the router needs from the process: the database client and how a key becomes its caller. */
export interface RouterDeps {
  db: () => PrismaClient;
  authenticate: (db: PrismaClient, authorization: string | null, ip: string | null) => Promise<ApiCaller>;
}

export class ApiRouter {
  private readonly paths: PathEntry[];
  /** The paths without params, by their text below API_BASE: most requests are found here in one lookup. */
  private readonly fixed = new Map<string, PathEntry>();

  constructor(
    routes: readonly ApiRoute[],
    private readonly deps: RouterDeps,
  ) {
    const byPath = new Map<string, PathEntry>();
    for (const r of routes) {
      const segments: Segment[] = r.path
        .split('/')
        .filter(Boolean)
        .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { fixed: s }));
      // Paths that differ only in a param's name are one path: the same requests reach them.
      const key = segments.map((s) => ('fixed' in s ? s.fixed : ':')).join('/');
      const entry = byPath.get(key) ?? { segments, rank: segments.map((s) => ('fixed' in s ? '0' : '1')).join(''), handlers: {}, allow: '' };
      if (entry.handlers[r.method]) throw new Error(`API route table: ${r.method} ${r.path} is listed twice`);
      entry.handlers[r.method] = r.handler;
      byPath.set(key, entry);
    }
    for (const entry of byPath.values()) {
      const own = Object.keys(entry.handlers) as Method[];
      entry.allow = [...own, ...(own.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    }
    this.paths = [...byPath.values()].sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
    for (const [key, entry] of byPath) if (!key.split('/').includes(':')) this.fixed.set(key, entry);
  }

  /** True for the paths this router answers: API_BASE and everything under it. */
  static owns(pathname: string): boolean {
    return pathname === API_BASE || pathname.startsWith(`${API_BASE}/`);
  }

  /** The entry and params for a request path (no query), or null when the table has none. */
  private match(pathname: string): Resolved | null {
    let rest = pathname.slice(API_BASE.length);
    // Clients written for a Django-style API add a trailing slash (next.config.mjs: skipTrailingSlashRedirect).
    if (rest.endsWith('/')) rest = rest.slice(0, -1);
    const fixed = rest.includes('%') ? undefined : this.fixed.get(rest.slice(1));
    if (fixed) return { entry: fixed, params: {} };
    let parts: string[];
    try {
      parts = (rest === '' ? [] : rest.slice(1).split('/')).map(decodeURIComponent);
    } catch {
      return null;
    }
    for (const entry of this.paths) {
      if (entry.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = entry.segments.every((s, i) => {
        if ('fixed' in s) return s.fixed === parts[i];
        params[s.param] = parts[i]!;
        return true;
      });
      if (matches) return { entry, params };
    }
    return null;
  }

  /**
   * The route of a request target (path and query, as on the request line), or the answer when
   * the path alone decides it: an empty segment's 308 and an unknown path's 404. server.ts asks
   * this before it builds a Web `Request`, which those answers do not need.
   */
  resolve(pathAndQuery: string): Resolved | Response {
    const queryAt = pathAndQuery.indexOf('?');
    const pathname = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
    // An empty segment (`/payment//list`): the same path without it, as Next redirects.
    if (pathname.includes('//')) {
      const location = pathname.replace(/\/\/+/g, '/') + (queryAt === -1 ? '' : pathAndQuery.slice(queryAt));
      // A body of bytes, so it carries no content type, as Next's redirect.
      return new Response(new TextEncoder().encode(location), { status: 308, headers: { location, refresh: `0;url=${location}` } });
    }
    return this.match(pathname) ?? errorResponse(notFound('Not found.'));
  }

  /**
   * Answers one API request. Never throws: every failure is an answer in the spec's error shape.
   * `resolved` is what resolve() found for this request's target, when the caller asked already.
   */
  async handle(req: Request, meta: RequestMeta, resolved?: Resolved): Promise<Response> {
    try {
      const href = req.url;
      let found = resolved;
      if (!found) {
        // The path and query of the absolute URL a Request always has.
        const answer = this.resolve(href.slice(href.indexOf('/', href.indexOf('//') + 2)));
        if (answer instanceof Response) return answer;
        found = answer;
      }
      const { entry, params } = found;
      const method = req.method === 'HEAD' ? 'GET' : (req.method as Method);
      if (req.method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow: entry.allow } });
      const db = this.deps.db();
      const caller = await this.deps.authenticate(db, req.headers.get('authorization'), meta.ip);
      const handler = entry.handlers[method];
      if (!handler) return methodNotAllowed(req.method, entry.allow);
      const result = await handler(new RequestContext(req, href, params, db, meta, caller));
      return result instanceof Response ? result : jsonResponse(result);
    } catch (err) {
      return toErrorResponse(err, meta.requestId);
    }
  }
}

/**
 * A handler's context. A class, not an object literal: a literal with spreads and a getter cost
 * ~35 µs of CPU per request under --cpu-prof (issue 25), this a few; the URL object is made only
 * for a handler that reads `url`.
 */
class RequestContext<P> implements ApiRequestContext<P> {
  readonly ip: string | null;
  readonly requestId: string;
  readonly merchant: ApiCaller['merchant'];
  readonly apiKey: ApiCaller['apiKey'];
  private parsedUrl: URL | undefined;

  constructor(
    readonly req: Request,
    private readonly href: string,
    readonly params: P,
    readonly db: PrismaClient,
    meta: RequestMeta,
    caller: ApiCaller,
  ) {
    this.ip = meta.ip;
    this.requestId = meta.requestId;
    this.merchant = caller.merchant;
    this.apiKey = caller.apiKey;
  }

  get url(): URL {
    return (this.parsedUrl ??= new URL(this.href));
  }
}
