import path from 'node:path';
import { bundledEntry, staleBundleReason, type BundleName } from '@/scripts/bundle';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * V8's baseline WebAssembly compiler only, for the processes the tests start (and, from
 * scripts/test.ts, the test processes themselves). Every process that loads Prisma compiles its
 * 3.4 MB query compiler (WebAssembly) and then optimizes its hot functions again in the
 * background: about half a second of CPU a process, of which the tests start hundreds, each
 * living seconds to minutes. With `--liftoff-only` a payouts file's processes spent 56 CPU s
 * against 63, and the unit and api lane took 167 s against 189 (issue 41, docs/testing.md, "The
 * lanes' CPU by process"). Only how V8 compiles changes, not what runs; `npm start` and
 * `npm run dev` keep V8's defaults, which suit processes that run for days.
 */
export const TEST_V8_FLAGS = ['--liftoff-only'];

/**
 * The node arguments that run bundle `name` (scripts/bundle.ts), as `npm start` runs it: tests
 * start the web server and the worker production runs. A missing or stale bundle stops the test
 * with what to do, rather than testing old code. Without `--enable-source-maps`: Node 20 reads
 * and parses the source map of every module it loads with the flag (Next's own and its chunks',
 * 25 MB for the web server), up to a second of CPU at each start, and the suite starts them again
 * and again (issue 41, docs/testing.md); the maps change only how a stack trace reads.
 */
export function bundled(name: BundleName): string[] {
  const stale = staleBundleReason(ROOT);
  if (stale !== null) throw new Error(`The bundle in dist/ is not current (${stale}): run \`npm run build\` first (npm test does)`);
  return [...TEST_V8_FLAGS, ...bundledEntry(ROOT, name).filter((arg) => arg !== '--enable-source-maps')];
}
