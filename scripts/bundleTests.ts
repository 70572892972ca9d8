import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, transform, type Loader, type Plugin } from 'esbuild';
import { BUNDLE_DIR, NODE_ESM_BUILD, REQUIRE_BANNER } from './bundle';

/**
 * `npm test`'s node test files, each bundled with the helpers and lib/ it imports into one ES
 * module (issue 41). Run from the sources, every test process loads tsx (its loader thread and
 * hooks) and then compiles and links its helpers and lib/ module by module: about 1.4 s of CPU a
 * process on this 2-core machine, and npm test runs some ninety. Bundled, the unit and api lane
 * spent 474 CPU s against 548 (docs/testing.md, "Test files bundled"). The same test code runs;
 * only where Node reads it from changes. Running one file by hand stays
 * `node --import tsx --test test/<lane>/<file>.test.ts`, from the sources.
 *
 * Each file keeps its place: test/chain/x.test.ts is written to dist/tests/test/chain/x.test.mjs.
 * Packages stay in node_modules, imported as they are; tronweb from the bundle's vendored file
 * (scripts/bundle.ts, VENDORED), as the tests' processes import it from the sources.
 */
export const TEST_BUNDLE_DIR = path.join(BUNDLE_DIR, 'tests');

/**
 * Test files that import TypeScript at run time, by a path built as they run (test/unit/singletons
 * loads fresh copies of lib/ modules through a query string), which no bundle can hold: these run
 * from their sources, through tsx registered by the small module written in their place.
 */
const FROM_SOURCES = ['test/unit/singletons.test.ts'];

/**
 * The operator scripts the node tests run (`npm run reconcile` and the like: through tsx, as
 * package.json runs them), bundled beside the test files: under tsx each run spent about 1.9 CPU s
 * (its loader thread and hooks, then lib/ module by module), bundled about 1.2 s, and the tests run
 * some thirty (issue 41, docs/testing.md, "A reconcile too many, and operator scripts bundled for
 * the tests"). The same script runs; only where Node reads it from changes. Tests run from their
 * sources run them from theirs (test/helpers/scripts.ts, `scriptArgs`). The tests of the README's
 * own commands run them through npm, as an operator does.
 */
export const TEST_OPERATOR_SCRIPTS = ['scripts/reconcile.ts', 'scripts/payment-retry.ts', 'scripts/payout-return.ts', 'scripts/energy.ts', 'scripts/two-factor-reset.ts'];

/** The bundled file that runs test file `file` (a path relative to the checkout). */
export function bundledTest(file: string): string {
  return path.join(TEST_BUNDLE_DIR, file.replace(/\.ts$/, '.mjs'));
}

/** The test file a bundled file runs: the inverse of `bundledTest`, for the timing report. */
export function sourceOfBundledTest(file: string): string {
  const relative = path.relative(TEST_BUNDLE_DIR, file);
  return relative.startsWith('..') ? file : relative.replace(/\.mjs$/, '.ts');
}

/**
 * A module's `import.meta` is its own file's: the tests find the checkout, their fixtures and
 * `require` from it (test/helpers/bundle.ts: `import.meta.dirname`). In one bundle every module's
 * would be the bundle's, so each module's is written in as its source file's, by esbuild's own
 * parser (never inside a string).
 */
function importMetaOfSource(root: string): Plugin {
  const tsconfigRaw = readFileSync(path.join(root, 'tsconfig.json'), 'utf8');
  return {
    name: 'import-meta-of-source',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const extension = path.extname(args.path).slice(1);
        const loader: Loader = extension === 'tsx' ? 'tsx' : extension.endsWith('ts') ? 'ts' : 'js';
        const url = pathToFileURL(args.path).href;
        const result = await transform(readFileSync(args.path, 'utf8'), {
          loader,
          format: 'esm',
          target: 'node20',
          sourcefile: args.path,
          sourcemap: 'inline',
          tsconfigRaw,
          define: { 'import.meta.dirname': JSON.stringify(path.dirname(args.path)), 'import.meta.filename': JSON.stringify(args.path), 'import.meta.url': JSON.stringify(url) },
        });
        return { contents: result.code, loader: 'js', warnings: result.warnings };
      });
    },
  };
}

/** Writes the bundle of every test file named (paths relative to `root`) and of TEST_OPERATOR_SCRIPTS; fails on any warning. */
export async function writeTestBundle(root: string, files: string[]): Promise<void> {
  const outdir = path.join(root, TEST_BUNDLE_DIR);
  rmSync(outdir, { recursive: true, force: true });
  const bundled = files.filter((file) => !FROM_SOURCES.includes(file));
  const vendoredTronweb = path.join(root, BUNDLE_DIR, 'tronweb.mjs');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [...bundled, ...TEST_OPERATOR_SCRIPTS],
    outdir,
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    ...NODE_ESM_BUILD,
    packages: 'external',
    // A bundled CommonJS dependency calls `require`; an ES module has none.
    banner: { js: REQUIRE_BANNER },
    // Stacks name the bundle's lines unless the run asks for maps (`node --enable-source-maps`).
    sourcemap: 'linked',
    plugins: [
      { name: 'vendored-tronweb', setup: (b) => b.onResolve({ filter: /^tronweb$/ }, () => ({ path: vendoredTronweb, external: true })) },
      importMetaOfSource(root),
    ],
    logLevel: 'silent',
  });
  // A warning here (a dynamic import that no bundle can hold, above all) would be a test that runs
  // other code than its sources: the file belongs in FROM_SOURCES, or the import is made static.
  if (result.warnings.length > 0) {
    throw new Error(`test bundle: ${result.warnings.map((w) => `${w.location ? `${w.location.file}:${w.location.line}: ` : ''}${w.text}`).join('; ')}`);
  }
  for (const file of files.filter((f) => FROM_SOURCES.includes(f))) {
    const out = path.join(root, bundledTest(file));
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `// Run from its sources (scripts/bundleTests.ts, FROM_SOURCES).\nimport { register } from 'tsx/esm/api';\nregister();\nawait import(${JSON.stringify(pathToFileURL(path.join(root, file)).href)});\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '..');
  const files = process.argv.slice(2);
  const started = Date.now();
  await writeTestBundle(root, files);
  console.log(`test bundle: ${files.length} test files in ${TEST_BUNDLE_DIR}/ (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
