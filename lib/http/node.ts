import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Caller, RequestMeta, Router } from './router';

/**
 * A router (router.ts) on a Node request: server.ts calls this for every path under /v1/api and
 * /dashboard/api. The request becomes a Web `Request` whose body is streamed as the handler reads
 * it, never buffered here; a JSON `Response` is written back whole, with its length, and anything
 * else (a CSV download) streamed as the handler makes it.
 */
export async function serveApi<C extends Caller>(router: Router<C>, req: IncomingMessage, res: ServerResponse, meta: RequestMeta): Promise<void> {
  const method = req.method ?? 'GET';
  const target = req.url ?? '/';
  // A target of characters URL parsing keeps as they are is routed as it came, before any Web
  // Request is built: an unknown path or an empty segment is answered without one (the rest,
  // rare, is routed from the Request's parsed URL).
  const resolved = PLAIN_TARGET.test(target) ? router.resolve(target) : undefined;
  const response = resolved instanceof Response ? resolved : await router.handle(toWebRequest(req), meta, resolved);
  const type = response.headers.get('content-type');
  if (response.body && type !== null && !JSON_TYPE.test(type)) return streamBody(req, res, response);
  // The APIs' answers are small JSON documents: sent whole, with their length.
  const body = Buffer.from(await response.arrayBuffer());
  copyHeaders(response, res);
  if (response.status !== 204) res.setHeader('content-length', body.byteLength);
  res.writeHead(response.status);
  res.end(method === 'HEAD' || response.status === 204 ? undefined : body);
  // A body the handler did not read (refused before it, or past the size limit) is dropped, so a
  // kept-alive connection reads its next request.
  if (!req.complete) discard(req);
}

function copyHeaders(response: Response, res: ServerResponse): void {
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/**
 * A body that is not JSON (the dashboard's CSV exports, which may be large) goes out as the
 * handler's stream makes it, chunked. A client that goes away, or a stream that fails midway,
 * ends the connection (the answer's status is sent already); the stream is canceled, so the
 * handler stops reading batches. A HEAD answer cancels it before any batch is read.
 */
async function streamBody(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  copyHeaders(response, res);
  res.writeHead(response.status);
  if (!req.complete) discard(req);
  if (req.method === 'HEAD') {
    await response.body!.cancel().catch(() => undefined);
    return void res.end();
  }
  try {
    await pipeline(Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream<Uint8Array>), res);
  } catch (err) {
    if (!res.destroyed) res.destroy(err as Error);
  }
}

/** A request target the WHATWG URL parser leaves unchanged (RFC 3986's path characters but `'`, which a query's parsing escapes, and `/`, `?`). */
const PLAIN_TARGET = /^\/[\w\-.~%!$&()*+,;=:@/?]*$/;

/** The Node request as the Web Request a handler takes (its body streamed, never buffered here). */
function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const host = req.headers.host && /^[A-Za-z0-9.:[\]-]+$/.test(req.headers.host) ? req.headers.host : '127.0.0.1';
  const url = `http://${host}${req.url ?? '/'}`;
  const method = req.method ?? 'GET';
  const withBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    ...(withBody && { body: bodyStream(req), duplex: 'half' }),
  } as RequestInit);
}

/**
 * The request body as a Web stream, read as the handler pulls. Canceling it (lib/http/request.ts
 * does past the size limit) drops the rest instead of destroying the socket, so the client still
 * gets the answer (413).
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
