/** @type {import('next').NextConfig} */
const nextConfig = {
  // Parallel builds (several checkouts' tests on one machine) each get their own output folder.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // tronweb and PGlite are Node libraries with their own wasm/crypto; load them from node_modules.
  serverExternalPackages: ['tronweb', '@electric-sql/pglite', '@electric-sql/pglite-socket', 'pg'],
  // Clients written for a Django-style API add a trailing slash; answer both forms without a redirect.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  typescript: { tsconfigPath: 'tsconfig.next.json' },
};

export default nextConfig;
