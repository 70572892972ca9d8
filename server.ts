import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import next from 'next';
import { config, dashboardBaseUrl, sessionConfig } from '@/lib/config';
import { db, sqlPool } from '@/lib/db/client';
import { clientIpFrom } from '@/lib/ipAllowList';
import { CLIENT_IP_HEADER } from '@/lib/auth/clientIp';
import { withSafeCallbackCookie, withSafeCallbackQuery } from '@/lib/auth/callbackUrl';
import { addressKey, RateLimiter } from '@/lib/rateLimit';
import { addCounts, isRestartsMessage, isRestartsWanted, RESTARTS_WANTED, restartsMessage, RestartBackoff, setRestartCounts, zeroCounts } from '@/lib/operations/restarts';
import { merchantApi } from '@/lib/http/api';
import { dashboardApi } from '@/lib/http/dashboard';
import { serveApi } from '@/lib/http/node';
import { errorBody } from '@/lib/http/errors';
import { SECURITY_HEADERS, securityHeadersFor } from '@/lib/http/securityHeaders';
import { bridgeConsole, createLogger, REQUEST_ID_HEADER, requestIdFrom } from '@/lib/log';

/**
 * Next.js behind a plain Node server, because route handlers cannot see the
 * socket: this is the one place that decides the caller's IP (from the socket,
 * or X-Forwarded-For past TRUSTED_PROXIES) and hands it on in a header that
 * clients cannot set.
 *
 * It is also the edge below Next: whatever Next would answer with an HTML page,
 * an empty body or a reset (unknown methods, bad percent-encoding, oversized
 * headers or URLs, slow bodies, unparsable requests) is answered here in the
 * spec's `{"detail": ...}` shape (spec part 7).
 */
const c = config();
const log = createLogger('web', c.LOG_LEVEL);
bridgeConsole(log);
// The dashboard's session settings are checked now, not at the first sign-in.
sessionConfig();
const dev = process.argv.includes('--dev');
// One Node process runs its JavaScript on one core: with WEB_CONCURRENCY > 1 this process only
// forks that many copies of itself, which share PORT (node:cluster hands each new connection to
// one of them) and run everything below. `npm run dev` stays a single process.
if (cluster.isPrimary && !dev && c.WEB_CONCURRENCY > 1) await runCluster(c.WEB_CONCURRENCY);
// Restart counts from the runner (one web process) or the cluster primary, for /healthz and /metrics:
// asked for once this process listens for them, and sent again at each restart.
process.on('message', (message) => {
  if (isRestartsMessage(message)) setRestartCounts(message.counts);
});
process.send?.(RESTARTS_WANTED);
const app = next({ dev, hostname: c.HOST, port: c.PORT });
await app.prepare();
await loadedBeforeListening(app);
const handle = app.getRequestHandler();

const MAX_HEADER_BYTES = 16 * 1024;
const MAX_URL_LENGTH = 8 * 1024;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const ALLOW = [...METHODS].join(', ');
// Public payment pages and refund claim pages (issue 36), and their JSON, limited per client address
// (IPv6 per /64): ids are sequential, and the limit keeps a guesser from walking them.
const PUBLIC_PAGE = /^\/payment\/(?:refund\/[^/?]+(?:\/(?:status|claim))?|[^/?]+(?:\/(?:status|devnet-pay|email))?)\/?(?:\?|$)/;
// Counted in PostgreSQL, so the limit holds across every web process and host (lib/rateLimit.ts).
const publicPages = new RateLimiter('page', c.PUBLIC_PAGE_RATE_PER_MINUTE, () => sqlPool(db()));
// The origin next-auth builds its URLs from (NEXTAUTH_URL, or else PUBLIC_BASE_URL).
const authBase = dashboardBaseUrl();

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large' };

/** The API's error body (errorBody, lib/http/errors.ts), with what a raw answer must add itself: its length and the security headers. */
function rawError(detail: string, extra: Record<string, string> = {}): { head: Record<string, string>; body: string } {
  const { body, headers } = errorBody(detail);
  return { head: { ...headers, 'content-length': String(Buffer.byteLength(body)), ...SECURITY_HEADERS, ...extra }, body };
}

function answer(res: ServerResponse, status: number, detail: string, extra: Record<string, string> = {}): void {
  const { head, body } = rawError(detail, extra);
  res.writeHead(status, head).end(body);
}

/** For errors met before there is a request object: the raw socket gets a whole HTTP/1.1 answer, then closes. */
function answerSocket(socket: Duplex, status: number, detail: string, extra: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  const { head, body } = rawError(detail, { ...extra, connection: 'close' });
  const lines = Object.entries(head).map(([k, v]) => `${k}: ${v}`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** `.` or `..` path segments, also percent-encoded: Next would resolve them to another route (or its HTML 404). */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** True when every %-escape in the request target is well formed and the whole decodes as UTF-8. */
function wellEncoded(target: string): boolean {
  try {
    decodeURIComponent(target);
    return true;
  } catch {
    return false;
  }
}

// Connections whose last answer said `Connection: close` (e.g. a 413 before the body was read):
// bytes still arriving on them are the rest of that body, not a new request, and get no answer.
const closing = new WeakSet<Duplex>();

const server = createServer(
  {
    maxHeaderSize: MAX_HEADER_BYTES,
    // A request (headers and body) must arrive whole within this; a slow body no longer holds a connection for minutes.
    requestTimeout: c.HTTP_REQUEST_TIMEOUT_SECONDS * 1000,
    headersTimeout: Math.min(c.HTTP_REQUEST_TIMEOUT_SECONDS, 20) * 1000,
    // How often those timeouts are checked (Node's default, 30 s, would let a slow request run 30 s over).
    connectionsCheckingInterval: 1000,
  },
  (req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    const target = req.url ?? '/';
    // The path without its query: search terms and filters are the merchant's data.
    const pathname = target.split('?')[0]!;
    const forwarded = req.headers['x-forwarded-for'];
    const ip = clientIpFrom(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded, c.TRUSTED_PROXIES);
    delete req.headers[CLIENT_IP_HEADER];
    if (ip) req.headers[CLIENT_IP_HEADER] = ip;
    // A request id from the caller (a proxy, a merchant's client) is kept when it is sane, else one is made;
    // it is answered in the same header and is in every log line about the request.
    const reqId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = reqId;
    res.setHeader(REQUEST_ID_HEADER, reqId);
    res.once('finish', () => {
      if (!res.shouldKeepAlive) closing.add(req.socket);
      log.info({ reqId, method: req.method, path: pathname, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, ip }, 'request');
    });
    for (const [name, value] of Object.entries(securityHeadersFor(target))) res.setHeader(name, value);

    if (!METHODS.has(req.method ?? '')) return answer(res, 405, `Method "${req.method}" not allowed.`, { allow: ALLOW });
    if (target.length > MAX_URL_LENGTH) return answer(res, 414, `Request URL is longer than ${MAX_URL_LENGTH} characters.`);
    if (!wellEncoded(target)) return answer(res, 400, 'Malformed percent-encoding in the request URL.');
    if (DOT_SEGMENT.test(pathname)) return answer(res, 400, 'Path segments "." and ".." are not accepted.');
    // next-auth answers a callbackUrl (query or cookie) that is no http(s) URL with a 500 page before
    // any of its callbacks runs: one that is not on the dashboard's origin is dropped here.
    if (pathname.startsWith('/api/auth/')) req.url = withSafeCallbackQuery(target, authBase);
    if (req.headers.cookie) req.headers.cookie = withSafeCallbackCookie(req.headers.cookie, authBase);
    if (PUBLIC_PAGE.test(target)) return void servePublicPage(req, res, ip);
    // The two JSON APIs, the merchant's (/v1/api) and the dashboard's (/dashboard/api), are answered
    // here by one router (lib/http/router.ts), each from its own table, under npm start and npm run
    // dev alike: Next's router would cost about a millisecond of CPU per request (docs/performance.md).
    const merchant = merchantApi();
    if (merchant.owns(pathname)) return void serveApi(merchant, req, res, { ip, requestId: reqId });
    const dashboard = dashboardApi();
    if (dashboard.owns(pathname)) return void serveApi(dashboard, req, res, { ip, requestId: reqId });
    void handle(req, res);
  },
);

/** A public payment page, once its address is under PUBLIC_PAGE_RATE_PER_MINUTE. */
async function servePublicPage(req: IncomingMessage, res: ServerResponse, ip: string | null | undefined): Promise<void> {
  let wait: number | null = null;
  try {
    wait = await publicPages.take(addressKey(ip ?? 'unknown'));
  } catch (err) {
    // The database does not answer: the page cannot be served either, and will say so itself.
    log.error({ err }, 'public page rate limit: not counted');
  }
  if (wait !== null) return answer(res, 429, `Too many requests from this address; try again in ${wait} s.`, { 'retry-after': String(wait) });
  void handle(req, res);
}

// Requests Node's parser refuses before any handler runs: oversized headers, unknown methods,
// malformed request lines, and requests that did not arrive within requestTimeout.
server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
  if (err.code === 'ECONNRESET' || !socket.writable || closing.has(socket)) return void socket.destroy();
  // Bytes after a request that is still being answered (a GET whose client sent an unframed body):
  // they are no request. Let the answer finish, then close; keep reading meanwhile, so the
  // kernel does not reset the connection under the answer.
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // A request whose body did not arrive in time: its handler is still waiting for it, so answer in its place.
  if (current && err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    if (current.headersSent) return void socket.destroy();
    answer(current, 408, `The request did not arrive within ${c.HTTP_REQUEST_TIMEOUT_SECONDS} s.`, { connection: 'close' });
    current.once('finish', () => socket.destroy());
    return;
  }
  // A body the parser refuses while its handler still reads it (a malformed chunk size, a bad
  // chunk terminator): no more of it will come, so answer 400 now rather than leave the handler
  // waiting for the 408 of requestTimeout (issue 27, finding 6).
  if (current && !current.req.complete && err.code?.startsWith('HPE_')) {
    if (current.headersSent) return void socket.destroy();
    answer(current, 400, 'Malformed request body (chunked transfer encoding).', { connection: 'close' });
    current.once('finish', () => socket.destroy());
    return;
  }
  if (current) {
    if (!current.headersSent) current.setHeader('connection', 'close');
    socket.on('data', () => undefined);
    socket.resume();
    const close = () => {
      socket.end();
      setTimeout(() => socket.destroy(), 5000).unref();
    };
    if (current.writableFinished) close();
    else current.once('finish', close).once('close', close);
    return;
  }
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return answerSocket(socket, 431, `Request headers are larger than ${MAX_HEADER_BYTES} bytes.`);
    case 'HPE_INVALID_METHOD':
      return answerSocket(socket, 405, 'Method not allowed.', { allow: ALLOW });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return answerSocket(socket, 408, `The request did not arrive within ${c.HTTP_REQUEST_TIMEOUT_SECONDS} s.`);
    default:
      return answerSocket(socket, 400, 'Malformed HTTP request.');
  }
});

// CONNECT never reaches the request handler; it gets the same refusal as any other unknown method.
server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerSocket(socket, 405, 'Method "CONNECT" not allowed.', { allow: ALLOW }));

server.listen(c.PORT, c.HOST, () => {
  log.info(`web: listening on http://${c.HOST}:${c.PORT} (${dev ? 'development' : 'production'})`);
});

/**
 * Loads what the first requests would otherwise wait for, so that this process takes connections
 * only once it has: every page and route of Next (its preload, `experimental.preloadEntriesOnStart`,
 * WEB_PRELOAD_ROUTES: docs/configuration.md) and the database client's query compiler. Next starts
 * its preload in the background and answers meanwhile: a web process restarted beside busy ones
 * (node:cluster hands it connections from its listen on) had its first requests wait for modules
 * still loading, and on a loaded machine two /healthz through Next went unanswered for 15 s while
 * the API's own router answered (the CI run of 7eaabf9, test/run/supervision.test.ts). Next's
 * custom server gives no promise of that preload; its server's `unstable_preloadEntries` loads what
 * is not loaded yet and returns at once for what is. Where a Next release moves it, the process
 * loads in the background as before, and says so. `$connect` with the pg adapter only loads the
 * compiler (the pool connects at the first query), so a database that is down delays nothing here.
 */
async function loadedBeforeListening(nextApp: unknown): Promise<void> {
  await db().$connect();
  if (dev) return;
  type Inner = { nextConfig?: { experimental?: { preloadEntriesOnStart?: boolean } }; unstable_preloadEntries?: () => Promise<void> };
  const outer = (nextApp as { server?: { getServer?: () => Promise<Inner> } }).server;
  const inner = await outer?.getServer?.();
  if (inner?.nextConfig?.experimental?.preloadEntriesOnStart === false) return;
  if (typeof inner?.unstable_preloadEntries !== 'function') {
    log.warn('web: cannot wait for Next to load its routes (its server has no unstable_preloadEntries); taking connections while it loads them');
    return;
  }
  // A page that fails to load is Next's to report when it is asked for, as its own preload does:
  // it is no reason for this process not to serve the others.
  await inner.unstable_preloadEntries().catch((err: unknown) => log.error({ err }, 'web: Next could not preload its routes; taking connections, they load as asked'));
}

/** How long a stop waits for requests under way before it cuts the connections still open. */
const STOP_GRACE_MS = 10_000;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    // A stop waits for the requests under way, not for a browser that keeps its connection busy (a
    // payment page asking for its status): kept-alive connections with nothing under way close now,
    // and whatever is still open after the grace is cut (a test's stop once waited minutes for a page).
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS).unref();
  });
}

/**
 * The cluster's primary: forks `size` web processes and never returns. One that exits unasked
 * is forked again after a backoff (lib/operations/restarts.ts) while the others keep serving
 * (issue 27, finding 1); on SIGINT/SIGTERM it stops them all, each closing its server as above.
 * It passes the restart counts (the runner's, and its own of web processes) on to every web
 * process, which show them on /healthz and /metrics.
 */
function runCluster(size: number): Promise<never> {
  let stopping = false;
  const backoff = new RestartBackoff();
  const startedAt = new Map<number, number>();
  let fromRunner = zeroCounts();
  const own = zeroCounts();
  const broadcast = () => {
    const counts = addCounts(fromRunner, own);
    setRestartCounts(counts);
    for (const w of Object.values(cluster.workers ?? {})) if (w?.isConnected()) w.send(restartsMessage(counts), () => undefined);
  };
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    worker.on('message', (message) => {
      if (isRestartsWanted(message) && worker.isConnected()) worker.send(restartsMessage(addCounts(fromRunner, own)), () => undefined);
    });
  };
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    setTimeout(() => process.exit(0), 15_000).unref();
  };
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      const delay = backoff.delayAfter(Date.now() - (startedAt.get(worker.id) ?? Date.now()));
      log.error(`web: process ${worker.process.pid} exited (${signal ?? code}); starting another in ${delay} ms, the others keep serving`);
      setTimeout(() => {
        if (stopping) return;
        own.web += 1;
        fork();
        broadcast();
      }, delay);
    }
    startedAt.delete(worker.id);
    if (stopping && Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  process.on('message', (message) => {
    if (!isRestartsMessage(message)) return;
    fromRunner = message.counts;
    broadcast();
  });
  process.send?.(RESTARTS_WANTED);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, stop);
  for (let i = 0; i < size; i++) fork();
  log.info(`web: ${size} processes (WEB_CONCURRENCY) on port ${c.PORT}`);
  return new Promise<never>(() => undefined);
}
