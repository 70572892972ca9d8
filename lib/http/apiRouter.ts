import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, toErrorResponse } from './route';

/**
 * The merchant API's route modules (app/v1/api/**\/route.ts) answered straight from server.ts,
 * without Next's router (API_ROUTER=direct, the default; docs/architecture.md, "The API's
 * router"). The modules are the same ones Next builds: Web `Request` in, `Response` out, nothing
 * from Next. Next's router costs about a millisecond of CPU per request before a route handler
 * runs (issue 16: a 404 that reads no table answered 1,834 req/s through Next, 8,776 bare), so
 * the API's throughput was a fraction of the SQL's.
 *
 * Only canonical paths are routed here: any path this table cannot match the way Next would
 * (an empty segment, an encoded or unusual character in a fixed segment) is left to Next, which
 * answers it as before.
 */

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];
type RouteFn = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
export type RouteModule = Partial<Record<Method, RouteFn>> & Record<string, unknown>;

type Segment = { kind: 'static'; value: string } | { kind: 'param'; name: string } | { kind: 'catchAll'; name: string; optional: boolean };

interface Route {
  segments: Segment[];
  module: RouteModule;
  /** Next's Allow answer to OPTIONS: the exported methods, HEAD and OPTIONS, sorted. */
  allow: string;
}

export interface ApiMatch {
  route: Route;
  params: Record<string, string | string[]>;
}

/** A fixed segment (or a catch-all's) is matched here only when it is plain: Next decodes and normalises the rest. */
const PLAIN_SEGMENT = /^[A-Za-z0-9_.~-]+$/;

function parseSegment(s: string): Segment {
  const optionalCatchAll = /^\[\[\.\.\.(\w+)\]\]$/.exec(s);
  if (optionalCatchAll) return { kind: 'catchAll', name: optionalCatchAll[1]!, optional: true };
  const catchAll = /^\[\.\.\.(\w+)\]$/.exec(s);
  if (catchAll) return { kind: 'catchAll', name: catchAll[1]!, optional: false };
  const param = /^\[(\w+)\]$/.exec(s);
  if (param) return { kind: 'param', name: param[1]! };
  return { kind: 'static', value: s };
}

/** Next's precedence: a fixed segment before a dynamic one, a dynamic one before a catch-all. */
function rank(route: Route): string {
  return route.segments.map((s) => (s.kind === 'static' ? '0' : s.kind === 'param' ? '1' : '2')).join('') + '3';
}

export class ApiRouter {
  private readonly routes: Route[];

  /**
   * @param base the path the modules are mounted at (`/v1/api`)
   * @param modules each module with its folder below `base`, as Next names them (`payment/get/[id]`, `[[...path]]`, `` for the root)
   */
  constructor(
    private readonly base: string,
    modules: { dir: string; module: RouteModule }[],
  ) {
    this.routes = modules
      .map(({ dir, module }) => {
        const exported = METHODS.filter((m) => typeof module[m] === 'function');
        const allow = [...exported, 'HEAD', 'OPTIONS'].sort().join(', ');
        return { segments: dir.split('/').filter(Boolean).map(parseSegment), module, allow };
      })
      .sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
  }

  /** The route for a request path (no query), or null when it is not the API's or is left to Next. */
  match(pathname: string): ApiMatch | null {
    if (pathname !== this.base && !pathname.startsWith(`${this.base}/`)) return null;
    let rest = pathname.slice(this.base.length);
    // Clients written for a Django-style API add a trailing slash (next.config.mjs: skipTrailingSlashRedirect).
    if (rest.endsWith('/')) rest = rest.slice(0, -1);
    const parts = rest === '' ? [] : rest.slice(1).split('/');
    // An empty segment (`//`): Next redirects it to the normalised path.
    if (parts.some((p) => p === '')) return null;
    for (const route of this.routes) {
      const params = matchRoute(route.segments, parts);
      if (params === undefined) continue;
      return params === null ? null : { route, params };
    }
    return null;
  }

  /** Answers one request with its matched route module, as Next would. */
  async serve(match: ApiMatch, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    let response: Response;
    try {
      if (method === 'OPTIONS') {
        res.writeHead(204, { allow: match.route.allow }).end();
        return;
      }
      const handler = match.route.module[method === 'HEAD' ? 'GET' : (method as Method)];
      response = handler ? await handler(toWebRequest(req, this.base), { params: Promise.resolve(match.params) }) : methodNotAllowed(method, match.route.allow);
    } catch (err) {
      // The route modules answer their own errors (lib/http/route.ts); this is a bug's last resort.
      const requestId = req.headers['x-request-id'];
      response = toErrorResponse(err, typeof requestId === 'string' ? requestId : null);
    }
    // The API's answers are small JSON documents: sent whole, with their length.
    const body = Buffer.from(await response.arrayBuffer());
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') res.setHeader(name, value);
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    res.setHeader('content-length', body.byteLength);
    res.writeHead(response.status);
    res.end(method === 'HEAD' ? undefined : body);
    // A body the handler did not read (refused before it, or past the size limit) is dropped, so a
    // kept-alive connection reads its next request, as under Next.
    if (!req.complete) discard(req);
  }
}

/**
 * The path's params when `segments` match `parts`; undefined when they do not; null when they
 * would, but the path is one Next must normalise first (an encoded or unusual character where a
 * fixed segment or a catch-all is matched).
 */
function matchRoute(segments: Segment[], parts: string[]): Record<string, string | string[]> | null | undefined {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.kind === 'catchAll') {
      const tail = parts.slice(i);
      if (tail.length === 0 && !s.optional) return undefined;
      if (tail.some((p) => !PLAIN_SEGMENT.test(p))) return null;
      if (tail.length > 0) params[s.name] = tail;
      return params;
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    if (s.kind === 'static') {
      if (part !== s.value) return PLAIN_SEGMENT.test(part) ? undefined : null;
      continue;
    }
    try {
      params[s.name] = decodeURIComponent(part);
    } catch {
      return null;
    }
  }
  return parts.length === segments.length ? params : undefined;
}

/** The Node request as the Web Request a route handler takes (its body streamed, never buffered here). */
function toWebRequest(req: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const host = req.headers.host && /^[A-Za-z0-9.:[\]-]+$/.test(req.headers.host) ? req.headers.host : '127.0.0.1';
  const url = `http://${host}${req.url ?? base}`;
  const method = req.method ?? 'GET';
  const withBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method: method === 'HEAD' ? 'GET' : method,
    headers,
    ...(withBody && { body: bodyStream(req), duplex: 'half' }),
  } as RequestInit);
}

/**
 * The request body as a Web stream, read as the handler pulls. Canceling it (lib/http/request.ts
 * does past the size limit) drops the rest instead of destroying the socket, so the client still
 * gets the answer (413), as under Next.
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Buffer) => {
        if (!open) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once('end', () => {
        if (open) controller.close();
        open = false;
      });
      req.once('error', (err) => {
        if (open) controller.error(err);
        open = false;
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      open = false;
      discard(req);
    },
  });
}

function discard(req: IncomingMessage): void {
  req.removeAllListeners('data');
  req.resume();
}
