// The import rules of lib/ as data, checked by dependency-cruiser over lib/ (`npm run lint`;
// docs/architecture.md, "Layers"). test/unit/architecture.test.ts runs this configuration on a
// planted tree to prove each rule fires, and checks that LIB_LAYERS names every folder of lib/.

/**
 * lib/'s folders, low to high: a folder imports at run time only folders on lower rows (`import
 * type` is erased by the compiler, so it is no dependency here); folders on one row import none
 * of each other. A file at lib/'s top is a folder of its own (`config` is lib/config.ts). So the
 * folders' graph has no cycle (rule n). To add a folder, put it on the lowest row above every
 * folder it imports; to make a folder import another that sits higher, move what both need below
 * both, or move the importer up above it (and what imports it above it in turn).
 */
export const LIB_LAYERS = [
  ['generated'], // the Prisma client, generated from prisma/schema.prisma
  ['backoff', 'errors', 'export', 'i18n', 'ipAllowList', 'log', 'money', 'networks', 'rateLimit', 'singletons', 'time'],
  ['config', 'validation'],
  ['aml', 'chain', 'crypto', 'db', 'rates'],
  // idempotency, ledger and worker run raw SQL through lib/db/sql.ts (issue 39): above db.
  ['devnet', 'idempotency', 'ledger', 'operations', 'rules', 'schemas', 'worker'],
  ['audit', 'transactions'],
  ['auth', 'webhooks'],
  ['notify'],
  ['merchants'],
  ['sends'], // the send engine: ensureSend, ensureGas
  ['energy'], // the pool, rentals, waves
  ['invoices'],
  ['payments', 'reconcile'], // the settlement engine; npm run reconcile's proof
  ['payouts'],
  ['refunds'],
  ['http'], // the HTTP edge: the router, both APIs' route tables
  ['openapi'], // the OpenAPI document
];

/** A path regex for these lib/ folders (a folder's files, or the top file of that name). */
const libPath = (folders) => `^lib/(${folders.join('|')})(?:/|\\.tsx?$)`;
const ALL = LIB_LAYERS.flat();

/** (c) The framework: lib/ is the framework-free domain. `@types/...` is where a type import of React resolves. */
const FRAMEWORK = '^node_modules/(?:@types/)?(?:next|next-auth|react|react-dom)/';
/** (c) lib/auth/session.ts is the adapter to next-auth: it imports next-auth and its credentials provider, nothing else of the framework. */
const SESSION = '^lib/auth/session\\.ts$';
const SESSION_IMPORTS = '^node_modules/next-auth/(?:index|providers/credentials)\\.(?:d\\.ts|js)$';
/** (a) lib/singletons.ts names the type of each value in its table (the API's router among them), by `import type` only. */
const SINGLETONS = '^lib/singletons\\.ts$';

// A rule's comment is reported by its name: the rules of one name share one comment.
const HTTP_COMMENT = '(a) lib/ outside lib/http and lib/openapi imports nothing of lib/http (lib/singletons.ts names its types only): throw an AppError with a code (lib/errors.ts); lib/http/errors.ts maps codes to statuses';
const FRAMEWORK_COMMENT = '(c) lib/ imports neither next nor react, nor app/ or components/ (lib/auth/session.ts, the adapter to next-auth, imports next-auth and its credentials provider only): framework code belongs in app/ or components/';

/** @type {import('dependency-cruiser').IConfiguration} */
const config = {
  forbidden: [
    ...LIB_LAYERS.map((layer, i) => ({
      name: 'lib-layers',
      severity: 'error',
      comment: '(n) a lib/ folder imports at run time only folders on lower rows of LIB_LAYERS (.dependency-cruiser.mjs): move what both need below both, or the importer up',
      from: { path: libPath(layer) },
      to: { path: libPath(LIB_LAYERS.slice(i).flat()), pathNot: '^lib/$1(?:/|\\.tsx?$)', dependencyTypesNot: ['type-only'] },
    })),
    {
      name: 'lib-layers-unlisted',
      severity: 'error',
      comment: '(n) every lib/ folder has its row in LIB_LAYERS (.dependency-cruiser.mjs): add it above what it imports',
      from: { path: '^lib/', pathNot: libPath(ALL) },
      to: {},
    },
    {
      name: 'lib-layers-unlisted',
      severity: 'error',
      comment: '(n) every lib/ folder has its row in LIB_LAYERS (.dependency-cruiser.mjs): add it above what it imports',
      from: {},
      to: { path: '^lib/', pathNot: libPath(ALL) },
    },
    {
      name: 'lib-no-cycle',
      severity: 'error',
      comment: '(n) no module of lib/ imports itself back at run time, within a folder too: move what both need into a third module',
      from: { path: '^lib/' },
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment: HTTP_COMMENT,
      from: { path: '^lib/', pathNot: ['^lib/(?:http|openapi)/', SINGLETONS] },
      to: { path: '^lib/http/' },
    },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment: HTTP_COMMENT,
      from: { path: SINGLETONS },
      to: { path: '^lib/http/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lib-no-framework',
      severity: 'error',
      comment: FRAMEWORK_COMMENT,
      from: { path: '^lib/', pathNot: SESSION },
      to: { path: [FRAMEWORK, '^(?:app|components)/'] },
    },
    {
      name: 'lib-no-framework',
      severity: 'error',
      comment: FRAMEWORK_COMMENT,
      from: { path: SESSION },
      to: { path: [FRAMEWORK, '^(?:app|components)/'], pathNot: SESSION_IMPORTS },
    },
    {
      name: 'lib-resolvable',
      severity: 'error',
      comment: 'every import of lib/ resolves (else the rules above could not see where it goes)',
      from: { path: '^lib/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Only lib/ is cruised: every rule is about what lib/ imports. Packages and the generated client are not followed.
    doNotFollow: { path: ['^node_modules/', '^lib/generated/'] },
    // `import type` is kept, marked type-only: rules (a) and (c) count it, the layers do not.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

export default config;
