import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed body; throws when the body is not JSON, which tests treat as a failure. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever JSON came back; assertions check its shape
  json: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A raw string is sent as is (to test bad JSON); anything else is JSON-encoded. */
  body?: unknown;
  /** Source IP on the loopback range (127.0.0.2 ...) to test IP whitelists for real. */
  localAddress?: string;
}

/**
 * One request. Node's global agent keeps connections alive (Node 19+), and a server closes an idle
 * one after its keep-alive timeout: a request written on a reused connection just as the server
 * closed it fails with ECONNRESET before the server read anything. Node's documented remedy is to
 * send it again on a new connection then (`req.reusedSocket`); the server never saw the first.
 */
export async function httpRequest(url: string, opts: RequestOptions = {}): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await requestOnce(url, opts);
    } catch (err) {
      if (!(err as { reusedSocket?: boolean }).reusedSocket || (err as NodeJS.ErrnoException).code !== 'ECONNRESET' || attempt >= 3) throw err;
    }
  }
}

const REQUEST_IDLE_MS = 180_000;

function requestOnce(url: string, opts: RequestOptions): Promise<HttpResponse> {
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...opts.headers },
        localAddress: opts.localAddress,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            get json() {
              return JSON.parse(text);
            },
          }),
        );
      },
    );
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    // A server that accepted and never answers fails the request instead of holding the test (and the
    // suite) forever: no answer of the app takes minutes, even on a busy machine.
    req.setTimeout(REQUEST_IDLE_MS, () => req.destroy(new Error(`${opts.method ?? 'GET'} ${url}: no answer for ${REQUEST_IDLE_MS / 1000} s`)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface ReceivedHook {
  body: string;
  headers: IncomingHttpHeaders;
}

export interface HookReceiver {
  /** Where to point a merchant's webhook_url. */
  url: string;
  /** Every delivery so far, oldest first. */
  hooks: ReceivedHook[];
  /** Stops listening, as a receiver that is down: connections to `url` are refused. */
  down(): Promise<void>;
  /** Listens on the same port again. */
  up(): Promise<void>;
  close(): void;
}

/**
 * A merchant's webhook endpoint on a free local port: answers 200 to every delivery and keeps it.
 * `{ down: true }` starts it down (its port reserved, then closed) until `up()`.
 */
export async function startHookReceiver(options: { down?: boolean } = {}): Promise<HookReceiver> {
  const hooks: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hooks.push({ body, headers: req.headers });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const up = () => new Promise<void>((resolve) => (server.listening ? resolve() : server.listen(port, '127.0.0.1', resolve)));
  if (options.down) await down();
  return { url: `http://127.0.0.1:${port}/hook`, hooks, down, up, close: () => void down() };
}

/** Sends raw bytes and returns the whole answer (or '' if the server hung up without one). */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (answer += d));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
    socket.write(bytes, 'latin1');
  });
}
