import { request } from 'node:http';

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
