/** @type {import('next').NextConfig} */
const nextConfig = {
  // tronweb and PGlite are Node libraries with their own wasm/crypto; load them from node_modules.
  serverExternalPackages: ['tronweb', '@electric-sql/pglite', '@electric-sql/pglite-socket', 'pg'],
  // Clients written for a Django-style API add a trailing slash; answer both forms without a redirect.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  typescript: { tsconfigPath: 'tsconfig.next.json' },
};

export default nextConfig;
