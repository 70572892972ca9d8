import { createServer } from 'node:http';
import next from 'next';
import { config } from '@/lib/config';
import { clientIpFrom } from '@/lib/auth/ipAllowList';
import { parseSessionEnv } from '@/lib/auth/sessionEnv';
import { CLIENT_IP_HEADER } from '@/lib/http/request';

/**
 * Next.js behind a plain Node server, because route handlers cannot see the
 * socket: this is the one place that decides the caller's IP (from the socket,
 * or X-Forwarded-For past TRUSTED_PROXIES) and hands it on in a header that
 * clients cannot set.
 */
const c = config();
// The dashboard's session settings are checked now, not at the first sign-in.
parseSessionEnv(process.env);
const dev = process.argv.includes('--dev');
const app = next({ dev, hostname: c.HOST, port: c.PORT });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  const forwarded = req.headers['x-forwarded-for'];
  const ip = clientIpFrom(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded, c.TRUSTED_PROXIES);
  delete req.headers[CLIENT_IP_HEADER];
  if (ip) req.headers[CLIENT_IP_HEADER] = ip;
  void handle(req, res);
});

server.listen(c.PORT, c.HOST, () => {
  console.log(`web: listening on http://${c.HOST}:${c.PORT} (${dev ? 'development' : 'production'})`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
