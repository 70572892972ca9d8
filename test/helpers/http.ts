import { createServer, request, type IncomingHttpHeaders } from 'node:http';

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

export function httpRequest(url: string, opts: RequestOptions = {}): Promise<HttpResponse> {
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
    req.on('error', reject);
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
  close(): void;
}

/** A merchant's webhook endpoint on a free local port: answers 200 to every delivery and keeps it. */
export async function startHookReceiver(): Promise<HookReceiver> {
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
  return { url: `http://127.0.0.1:${port}/hook`, hooks, close: () => server.close() };
}
