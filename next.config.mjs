/** @type {import('next').NextConfig} */
const nextConfig = {
  // Parallel builds (several checkouts' tests on one machine) each get their own output folder.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // tronweb and pg are Node libraries with their own crypto/native bits; load them from node_modules
  // (pino and prom-client too: server-only, as the worker loads them).
  serverExternalPackages: ['tronweb', 'pg', 'pino', 'prom-client'],
  // Clients written for a Django-style API add a trailing slash; answer both forms without a redirect.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  // Next loads every page and route when a production server starts, so that no first request
  // waits for its module: about 2 s of CPU, in the background as the server answers. A server that
  // serves a few pages and stops (a test's) loads them as they are asked for: WEB_PRELOAD_ROUTES=false
  // (issue 41; docs/configuration.md). Read when the server starts, not when it is built.
  experimental: { preloadEntriesOnStart: process.env.WEB_PRELOAD_ROUTES !== 'false' },
  // The dev server logs every server function call with its arguments: the sign-up action's
  // include the password (issue 14, finding 9). Nothing secret goes to a log.
  logging: { serverFunctions: false },
  // npm test builds with NEXT_SKIP_TYPECHECK=1 and then type-checks once, with `tsc` over
  // everything and the route types this build writes to .next/types (scripts/test.ts, issue 41).
  typescript: { tsconfigPath: 'tsconfig.next.json', ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === '1' },
};

export default nextConfig;
