import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import next from 'next';
import { config } from '@/lib/config';
import { clientIpFrom } from '@/lib/auth/ipAllowList';
import { parseSessionEnv } from '@/lib/auth/sessionEnv';
import { CLIENT_IP_HEADER } from '@/lib/http/request';
import { bridgeConsole, CLIENT_REQUEST_ID, createLogger, REQUEST_ID_HEADER } from '@/lib/log';

/**
 * Next.js behind a plain Node server, because route handlers cannot see the
 * socket: this is the one place that decides the caller's IP (from the socket,
 * or X-Forwarded-For past TRUSTED_PROXIES) and hands it on in a header that
 * clients cannot set.
 */
const c = config();
const log = createLogger('web', c.LOG_LEVEL);
bridgeConsole(log);
// The dashboard's session settings are checked now, not at the first sign-in.
parseSessionEnv(process.env);
const dev = process.argv.includes('--dev');
const app = next({ dev, hostname: c.HOST, port: c.PORT });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  const started = process.hrtime.bigint();
  const forwarded = req.headers['x-forwarded-for'];
  const ip = clientIpFrom(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded, c.TRUSTED_PROXIES);
  delete req.headers[CLIENT_IP_HEADER];
  if (ip) req.headers[CLIENT_IP_HEADER] = ip;
  // A request id from the caller (a proxy, a merchant's client) is kept when it is sane, else one is made;
  // it is answered in the same header and is in every log line about the request.
  const given = req.headers[REQUEST_ID_HEADER];
  const reqId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  req.headers[REQUEST_ID_HEADER] = reqId;
  res.setHeader(REQUEST_ID_HEADER, reqId);
  res.once('finish', () => {
    // The path without its query: search terms and filters are the merchant's data.
    const path = (req.url ?? '').split('?')[0];
    log.info({ reqId, method: req.method, path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, ip }, 'request');
  });
  void handle(req, res);
});

server.listen(c.PORT, c.HOST, () => {
  log.info(`web: listening on http://${c.HOST}:${c.PORT} (${dev ? 'development' : 'production'})`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
