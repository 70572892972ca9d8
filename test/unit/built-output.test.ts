import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundledEntry, bundleIfStale, staleBundleReason, writeBundle } from '@/scripts/bundle';

/**
 * Production runs built output (scripts/bundle.ts, issue 25): server.ts and the worker bundled
 * with lib/ into dist/, packages left in node_modules but tronweb, vendored as one file. Here on a checkout of a few files, so each
 * rule of "stale" is seen to hold.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function tinyCheckout(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'bundle-'));
  for (const dir of ['lib', 'worker', 'scripts', 'devnet']) mkdirSync(path.join(root, dir));
  // The path alias and a package from node_modules, as the real entries use them.
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { paths: { '@/*': ['./*'] } } }));
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  writeFileSync(path.join(root, 'lib', 'greeting.ts'), "export function greet(name: string): string {\n  if (name === 'fail') {\n    throw new Error('greeting failed');\n  }\n  return `hello ${name}`;\n}\n");
  writeFileSync(
    path.join(root, 'server.ts'),
    "import pg from 'pg';\nimport { greet } from '@/lib/greeting';\nconsole.log(greet(process.argv[2] ?? 'web'), typeof pg.Pool);\n",
  );
  // tronweb, which the bundle vendors (dist/tronweb.mjs) rather than importing from node_modules.
  writeFileSync(
    path.join(root, 'worker', 'main.ts'),
    "import { TronWeb } from 'tronweb';\nimport { greet } from '@/lib/greeting';\nconsole.log(greet('worker'), TronWeb.isAddress('TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'));\n",
  );
  writeFileSync(path.join(root, 'scripts', 'exitWithParent.ts'), 'export {};\n');
  writeFileSync(path.join(root, 'devnet', 'cli.ts'), "import { greet } from '@/lib/greeting';\nconsole.log(greet('devnet'));\n");
  writeFileSync(path.join(root, 'README.md'), 'not an input\n');
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return root;
}

/** Sets `file`'s times `seconds` from now: mtimes decide staleness, and a test must not depend on the clock's resolution. */
const age = (root: string, file: string, seconds: number) => {
  const t = new Date(Date.now() + seconds * 1000);
  utimesSync(path.join(root, file), t, t);
};

describe('built output: the bundle production runs', () => {
  it('is stale when missing, when an input or a setting changed, or when an input was deleted; not for other files', () => {
    const root = tinyCheckout();
    try {
      assert.equal(staleBundleReason(root), 'no bundle in dist');
      assert.equal(bundleIfStale(root), 'no bundle in dist');
      assert.equal(staleBundleReason(root), null);
      assert.equal(bundleIfStale(root), null, 'a current bundle is not written again');
      for (const file of ['server.ts', 'lib/greeting.ts', 'worker/main.ts', 'package.json', 'tsconfig.json']) {
        age(root, file, 60);
        assert.equal(staleBundleReason(root), `${file} changed`);
        age(root, file, -60);
        assert.equal(staleBundleReason(root), null, `${file} back to before the bundle`);
      }
      age(root, 'README.md', 60);
      assert.equal(staleBundleReason(root), null, 'a file no entry imports');
      unlinkSync(path.join(root, 'dist', 'worker.mjs'));
      assert.equal(staleBundleReason(root), 'dist/worker.mjs is missing');
      writeBundle(root);
      unlinkSync(path.join(root, 'dist', 'tronweb.mjs'));
      assert.equal(staleBundleReason(root), 'dist/tronweb.mjs is missing');
      writeBundle(root);
      unlinkSync(path.join(root, 'lib', 'greeting.ts'));
      assert.equal(staleBundleReason(root), 'lib/greeting.ts was deleted');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("gives the sources' processes tronweb from the vendored file while it is current, node_modules' once a file it was built from changed", () => {
    const root = tinyCheckout();
    try {
      for (const file of ['vendoredTronweb.mjs', 'vendoredTronwebHooks.mjs']) copyFileSync(path.join(ROOT, 'scripts', file), path.join(root, 'scripts', file));
      // Where tronweb resolves in a process run as package.json's scripts run one (scripts/bundle.ts, sourceNodeArgs).
      const resolved = () => {
        const r = spawnSync(process.execPath, ['--import', './scripts/vendoredTronweb.mjs', '--input-type=module', '-e', "console.log(import.meta.resolve('tronweb'))"], { cwd: root, encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        return new URL(r.stdout.trim()).pathname;
      };
      // node_modules is the checkout's, linked: Node resolves it to where it really is.
      const installed = path.join(ROOT, 'node_modules', 'tronweb', 'lib', 'esm', 'index.js');
      const vendored = path.join(root, 'dist', 'tronweb.mjs');
      assert.equal(resolved(), installed, 'no bundle yet');
      writeBundle(root);
      assert.equal(resolved(), vendored);
      // The bundle written before the package files it lists (dist/meta.json): one of them changed since.
      // (Set to the year 2000: older than any package file however long ago it was installed.)
      utimesSync(path.join(root, 'dist', 'meta.json'), new Date('2000-01-01'), new Date('2000-01-01'));
      assert.equal(resolved(), installed, 'a package file newer than the bundle');
      age(root, 'dist/meta.json', 0);
      assert.equal(resolved(), vendored);
      writeFileSync(path.join(root, 'package-lock.json'), '{}');
      age(root, 'package-lock.json', 60);
      assert.equal(resolved(), installed, 'packages installed since');
      age(root, 'package-lock.json', -60);
      assert.equal(resolved(), vendored);
      unlinkSync(path.join(root, 'dist', 'tronweb.mjs'));
      assert.equal(resolved(), installed, 'the vendored file missing');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('runs with its own code inside, packages from node_modules, and stacks that name the TypeScript line', () => {
    const root = tinyCheckout();
    try {
      writeBundle(root);
      const run = (name: 'server' | 'worker' | 'devnet', ...args: string[]) => spawnSync(process.execPath, [...bundledEntry(root, name), ...args], { cwd: root, encoding: 'utf8' });
      assert.equal(run('server').stdout, 'hello web function\n');
      assert.equal(run('worker').stdout, 'hello worker true\n');
      // tronweb comes from its one file beside the bundle, not node_modules' 300 modules (issue 41).
      const worker = readFileSync(path.join(root, 'dist', 'worker.mjs'), 'utf8');
      assert.match(worker, /from "\.\/tronweb\.mjs"/);
      assert.doesNotMatch(worker, /from "tronweb"/);
      // The vendored file answers every import node_modules' ES build does, its default too.
      const exportsOf = (file: string) => spawnSync(process.execPath, ['--input-type=module', '-e', `console.log(Object.keys(await import(${JSON.stringify(file)})).sort().join(','))`], { cwd: root, encoding: 'utf8' }).stdout;
      assert.equal(exportsOf(path.join(root, 'dist', 'tronweb.mjs')), exportsOf(path.join(ROOT, 'node_modules', 'tronweb', 'lib', 'esm', 'index.js')));
      assert.equal(run('devnet').stdout, 'hello devnet\n');
      // The bundle holds lib/: it runs with the source gone.
      rmSync(path.join(root, 'lib'), { recursive: true });
      const failed = run('server', 'fail');
      assert.notEqual(failed.status, 0);
      assert.match(failed.stderr, /greeting failed/);
      assert.match(failed.stderr, /lib\/greeting\.ts:3:11/, failed.stderr);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
