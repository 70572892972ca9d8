import type { PrismaClient } from '@/lib/db/client';
import type { Merchant } from '@/lib/generated/prisma/client';
import { notFound } from '@/lib/errors';
import { errorResponse, jsonResponse } from './errors';
import { methodNotAllowed, toErrorResponse } from './route';

/**
 * The JSON APIs' own HTTP layer (issues 25 and 39): an explicit table of routes, matched here
 * below the API's base path, with a typed context built once per request. Two tables use it:
 * the merchant API under /v1/api (lib/http/api, callers authenticated by API key) and the
 * dashboard's JSON API under /dashboard/api (lib/http/dashboard, by session). Web `Request` in,
 * `Response` out, nothing from Next: server.ts calls it straight from its Node handler (node.ts).
 *
 * What the table does not name is answered from it too: an unknown path is a JSON 404 (before
 * authentication: a guess at a path learns nothing else), OPTIONS lists the path's methods, HEAD
 * runs GET without its body, and a known path with another method is a JSON 405 with `Allow`,
 * after authentication (as in Django REST framework, which the spec follows).
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What the edge in front (server.ts) knows of a request before it is routed. */
export interface RequestMeta {
  /** The caller's address, from the socket or trusted proxies (server.ts); null when unknown. */
  ip: string | null;
  /** The request id in every log line about it, and in its answer's X-Request-Id. */
  requestId: string;
}

/** Who is calling, once the API's authenticate step accepted the request: at least the merchant. */
export interface Caller {
  merchant: Merchant;
}

/**
 * Everything a handler is given: built once per request, typed, not read back from headers. `C`
 * is the table's caller (the merchant API's `ApiCaller`, with the key; the dashboard's, with the
 * session's sign-in time).
 */
export type RequestContext<P, C extends Caller = Caller> = RequestMeta &
  C & {
    req: Request;
    url: URL;
    params: P;
    /** The database client of this process (lib/db/client.ts), for the handler to pass to lib/. */
    db: PrismaClient;
  };

export type Handler<P, C extends Caller = Caller> = (ctx: RequestContext<P, C>) => Promise<unknown>;

/** `/payment/get/:id` → `{ id: string }`: a route's params, from its path pattern. */
export type ParamsOf<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<string, never>;

type AnyHandler = Handler<Record<string, string>, never>;

export interface Route<C extends Caller = Caller> {
  method: Method;
  /** Below the API's base path: fixed segments and `:name` params, e.g. `/payment/get/:id`. */
  path: string;
  handler: Handler<Record<string, string>, C>;
}

/**
 * The row maker of a table whose callers are `C`: `const route = routeOf<ApiCaller>()`, then
 * `route(method, path, handler)`, the handler's params typed from its path.
 */
export function routeOf<C extends Caller>() {
  return <Path extends string>(method: Method, path: Path, handler: Handler<ParamsOf<Path>, C>): Route<C> => ({ method, path, handler: handler as Handler<Record<string, string>, C> });
}

type Segment = { param: string } | { fixed: string };

interface PathEntry {
  segments: Segment[];
  /** A fixed segment ranks before a param at the same place: `/transaction/list` before `/transaction/:trn_hash`. */
  rank: string;
  handlers: Partial<Record<Method, AnyHandler>>;
  /** The path's methods for `Allow`: its own, HEAD with GET, and OPTIONS. */
  allow: string;
}

/** A request's place in the table (Router.resolve). */
export interface Resolved {
  readonly entry: PathEntry;
  readonly params: Record<string, string>;
}

/**
 * What makes a table an API: where it is served, the process's database client and how a request
 * becomes its caller (or the AppError to answer with).
 */
export interface RouterDeps<C extends Caller> {
  /** The path the table's paths are below, e.g. `/v1/api`. */
  base: string;
  db: () => PrismaClient;
  authenticate: (req: Request, db: PrismaClient, meta: RequestMeta) => Promise<C>;
}

export class Router<C extends Caller = Caller> {
  private readonly base: string;
  private readonly paths: PathEntry[];
  /** The paths without params, by their text below the base: most requests are found here in one lookup. */
  private readonly fixed = new Map<string, PathEntry>();

  constructor(
    routes: readonly Route<C>[],
    private readonly deps: RouterDeps<C>,
  ) {
    this.base = deps.base;
    const byPath = new Map<string, PathEntry>();
    for (const r of routes) {
      const segments: Segment[] = r.path
        .split('/')
        .filter(Boolean)
        .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { fixed: s }));
      // Paths that differ only in a param's name are one path: the same requests reach them.
      const key = segments.map((s) => ('fixed' in s ? s.fixed : ':')).join('/');
      const entry = byPath.get(key) ?? { segments, rank: segments.map((s) => ('fixed' in s ? '0' : '1')).join(''), handlers: {}, allow: '' };
      if (entry.handlers[r.method]) throw new Error(`Route table of ${deps.base}: ${r.method} ${r.path} is listed twice`);
      entry.handlers[r.method] = r.handler as AnyHandler;
      byPath.set(key, entry);
    }
    for (const entry of byPath.values()) {
      const own = Object.keys(entry.handlers) as Method[];
      entry.allow = [...own, ...(own.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    }
    this.paths = [...byPath.values()].sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
    for (const [key, entry] of byPath) if (!key.split('/').includes(':')) this.fixed.set(key, entry);
  }

  /** True for the paths this router answers: its base and everything under it. */
  owns(pathname: string): boolean {
    return pathname.startsWith(this.base) && (pathname.length === this.base.length || pathname[this.base.length] === '/');
  }

  /** The entry and params for a request path (no query), or null when the table has none. */
  private match(pathname: string): Resolved | null {
    let rest = pathname.slice(this.base.length);
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
      const caller = await this.deps.authenticate(req, db, meta);
      const handler = entry.handlers[method];
      if (!handler) return methodNotAllowed(req.method, entry.allow);
      const result = await handler(new Context(req, href, params, db, meta, caller) as unknown as RequestContext<Record<string, string>, never>);
      return result instanceof Response ? result : jsonResponse(result);
    } catch (err) {
      return toErrorResponse(err, meta.requestId);
    }
  }
}

/**
 * A handler's context (a RequestContext with its caller's fields). A class, not an object literal:
 * a literal with spreads and a getter cost ~35 µs of CPU per request under --cpu-prof (issue 25),
 * this a few; the URL object is made only for a handler that reads `url`.
 */
class Context<P, C extends Caller> {
  readonly ip: string | null;
  readonly requestId: string;
  private parsedUrl: URL | undefined;

  constructor(
    readonly req: Request,
    private readonly href: string,
    readonly params: P,
    readonly db: PrismaClient,
    meta: RequestMeta,
    caller: C,
  ) {
    this.ip = meta.ip;
    this.requestId = meta.requestId;
    // The caller's fields (the merchant, and the key or the session's sign-in time), as they are.
    Object.assign(this, caller);
  }

  get url(): URL {
    return (this.parsedUrl ??= new URL(this.href));
  }
}
