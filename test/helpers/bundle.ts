import path from 'node:path';
import { bundledEntry, staleBundleReason, type BundleName } from '@/scripts/bundle';

const ROOT = path.resolve(import.meta.dirname, '../..');

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
  return bundledEntry(ROOT, name).filter((arg) => arg !== '--enable-source-maps');
}
