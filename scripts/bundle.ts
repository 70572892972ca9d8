import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * Production runs built output, not tsx (issue 25): the web server, the worker and the runner's
 * preload, each bundled with lib/ (and the generated Prisma client) into one ES module in dist/.
 * Packages stay in node_modules, imported as they are, but for tronweb (VENDORED below).
 * `node --enable-source-maps dist/x.mjs` names the .ts lines in stacks. Measured in docs/performance.md: the same serving, a faster
 * start (no TypeScript compiled at each start or restart).
 *
 * `npm run build` writes it (after `next build`); `npm start` (scripts/buildIfStale.ts) writes it
 * when it is missing or older than one of its inputs, which esbuild lists in dist/meta.json.
 * `npm run dev`, `npm run devnet` and the operator scripts keep running the sources through tsx;
 * the tests start the devnet from its bundle.
 */
export const BUNDLE_DIR = 'dist';

/** What is bundled: the name in dist/ (`<name>.mjs`) and its source. */
export const BUNDLE_ENTRIES = {
  server: 'server.ts',
  worker: 'worker/main.ts',
  exitWithParent: 'scripts/exitWithParent.ts',
  // The devnet's command line: the tests start it from here (issue 41: no TypeScript compiled at
  // each of the suite's devnet starts); `npm run devnet` still runs the sources through tsx.
  devnet: 'devnet/cli.ts',
} as const;
export type BundleName = keyof typeof BUNDLE_ENTRIES;

/**
 * Packages built into a file of their own in dist/ (`<name>.mjs`, no source map), which the bundles
 * import instead of node_modules: tronweb's ES build is some 300 modules (ethers, axios and its
 * own), which Node resolves, reads and links one by one at every start: 0.7 s of a process's CPU
 * on this 2-core machine, 0.2 s as one file (issue 41: the tests start hundreds of web servers,
 * workers and devnets; an operator's restart starts sooner). The same code runs; only where Node
 * reads it from changes. Without a source map of its own, the bundles' maps stay ours alone, as
 * small to read at each start as before.
 */
const VENDORED = { tronweb: 'tronweb' } as const;

const VENDORED_ENTRY_SUFFIX = '.vendored-entry.mjs';

/**
 * A vendored package's CommonJS modules (axios's, in tronweb) call `require` for Node's own
 * modules; an ES module has none, so its file makes one. The test bundle's too (scripts/bundleTests.ts).
 */
export const REQUIRE_BANNER = "import { createRequire as __vendoredRequire } from 'node:module'; const require = __vendoredRequire(import.meta.url);";

/** What every bundle here is: one ES module for this project's Node. */
export const NODE_ESM_BUILD = { bundle: true, platform: 'node', format: 'esm', target: 'node20' } as const;

/** Settings that change the output without being an input esbuild reads as code. */
const SETTINGS_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/bundle.ts'];

const META_FILE = 'meta.json';

/** The node arguments that run bundle `name` of the checkout at `root`. */
export function bundledEntry(root: string, name: BundleName): string[] {
  return ['--enable-source-maps', path.join(root, BUNDLE_DIR, `${name}.mjs`)];
}

/**
 * The node arguments that run a TypeScript file of the checkout at `root` from its sources, as
 * package.json's scripts do (which write them out themselves): through tsx, tronweb from the
 * bundle's vendored file when it is current (scripts/vendoredTronweb.mjs).
 */
export function sourceNodeArgs(root: string): string[] {
  return ['--import', 'tsx', '--import', path.join(root, 'scripts', 'vendoredTronweb.mjs')];
}

/** Why the bundle in `root` must be written again, or null when it is current. */
export function staleBundleReason(root: string): string | null {
  const dir = path.join(root, BUNDLE_DIR);
  const written = statSync(path.join(dir, META_FILE), { throwIfNoEntry: false });
  if (!written) return `no bundle in ${BUNDLE_DIR}`;
  let inputs: string[];
  try {
    inputs = Object.keys((JSON.parse(readFileSync(path.join(dir, META_FILE), 'utf8')) as { inputs: Record<string, unknown> }).inputs);
  } catch {
    return `${BUNDLE_DIR}/${META_FILE} is unreadable`;
  }
  for (const name of [...Object.keys(BUNDLE_ENTRIES), ...Object.keys(VENDORED)]) {
    if (!statSync(path.join(dir, `${name}.mjs`), { throwIfNoEntry: false })) return `${BUNDLE_DIR}/${name}.mjs is missing`;
  }
  for (const input of inputs) {
    const stat = statSync(path.join(root, input), { throwIfNoEntry: false });
    if (!stat) return `${input} was deleted`;
    if (stat.mtimeMs > written.mtimeMs) return `${input} changed`;
  }
  for (const file of SETTINGS_FILES) {
    const stat = statSync(path.join(root, file), { throwIfNoEntry: false });
    if (stat && stat.mtimeMs > written.mtimeMs) return `${file} changed`;
  }
  return null;
}

/**
 * Writes the bundle of `root`. Each file is written under a temporary name and renamed, and the
 * list of inputs last: a process starting meanwhile reads a whole old or a whole new file, and
 * a build that dies halfway leaves the bundle stale, never current with half its files.
 */
export function writeBundle(root: string): void {
  const outdir = path.join(root, BUNDLE_DIR);
  const vendored = Object.entries(VENDORED).map(([name, pkg]) =>
    buildSync({
      absWorkingDir: root,
      // `export *` leaves out a default export: named again, so the file answers every import node_modules' does.
      stdin: { contents: `export * from '${pkg}';\nexport { default } from '${pkg}';`, resolveDir: root, sourcefile: `${name}${VENDORED_ENTRY_SUFFIX}` },
      outfile: path.join(outdir, `${name}.mjs`),
      ...NODE_ESM_BUILD,
      banner: { js: REQUIRE_BANNER },
      metafile: true,
      write: false,
      logLevel: 'warning',
    }),
  );
  const result = buildSync({
    absWorkingDir: root,
    entryPoints: BUNDLE_ENTRIES,
    outdir,
    outExtension: { '.js': '.mjs' },
    ...NODE_ESM_BUILD,
    packages: 'external',
    // Each vendored package is imported from its file beside the bundle.
    alias: Object.fromEntries(Object.entries(VENDORED).map(([name, pkg]) => [pkg, `./${name}.mjs`])),
    external: Object.keys(VENDORED).map((name) => `./${name}.mjs`),
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outdir, { recursive: true });
  const place = (file: string, contents: Uint8Array | string) => {
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, contents);
    renameSync(temporary, file);
  };
  // The vendored files first: a bundle written is never read before what it imports.
  for (const build of [...vendored, result]) for (const file of build.outputFiles) place(file.path, file.contents);
  // A vendored file's entry is no file (esbuild's stdin): its inputs are the package's files.
  const inputs = Object.fromEntries(
    [...vendored, result].flatMap((build) => Object.entries(build.metafile.inputs)).filter(([input]) => !input.endsWith(VENDORED_ENTRY_SUFFIX)),
  );
  // Each vendored file's own inputs too: what the resolve hook of the processes run from the sources
  // judges that file by (scripts/vendoredTronwebHooks.mjs), where a change to lib/ does not matter.
  const vendoredInputs = Object.fromEntries(
    Object.keys(VENDORED).map((name, i) => [name, Object.keys(vendored[i]!.metafile.inputs).filter((input) => !input.endsWith(VENDORED_ENTRY_SUFFIX))]),
  );
  place(path.join(outdir, META_FILE), JSON.stringify({ ...result.metafile, inputs, vendoredInputs }));
}

/** Writes the bundle when it is stale; returns why it did, or null. */
export function bundleIfStale(root: string): string | null {
  const reason = staleBundleReason(root);
  if (reason !== null) writeBundle(root);
  return reason;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.resolve(import.meta.dirname, '..');
  writeBundle(root);
  console.log(`bundle: ${[...Object.keys(BUNDLE_ENTRIES), ...Object.keys(VENDORED)].map((name) => `${BUNDLE_DIR}/${name}.mjs`).join(', ')}`);
}
