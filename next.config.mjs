/** @type {import('next').NextConfig} */
const nextConfig = {
  // Parallel builds (several checkouts' tests on one machine) each get their own output folder.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // tronweb and PGlite are Node libraries with their own wasm/crypto; load them from node_modules.
  serverExternalPackages: ['tronweb', '@electric-sql/pglite', '@electric-sql/pglite-socket', 'pg'],
  // Clients written for a Django-style API add a trailing slash; answer both forms without a redirect.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  // The dev server logs every server function call with its arguments: the sign-up action's
  // include the password (issue 14, finding 9). Nothing secret goes to a log.
  logging: { serverFunctions: false },
  typescript: { tsconfigPath: 'tsconfig.next.json' },
};

export default nextConfig;
