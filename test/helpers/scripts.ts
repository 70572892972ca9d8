import path from 'node:path';
import { sourceNodeArgs } from '@/scripts/bundle';
import { bundledTest, TEST_BUNDLE_DIR, TEST_OPERATOR_SCRIPTS } from '@/scripts/bundleTests';
import { TEST_V8_FLAGS } from './bundle';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The node arguments before an operator script's file, as `npm run <script>` runs it (package.json:
 * through tsx, tronweb from the bundle's vendored file when current; scripts/bundle.ts,
 * sourceNodeArgs), with the V8 flags of every process the tests start (TEST_V8_FLAGS: a reconcile
 * spent 1.0 s of CPU with them against 1.6 s without, most of it Prisma's query compiler optimized
 * again in the background; the chain lane runs some forty scripts).
 */
export const SCRIPT_NODE_ARGS = [...TEST_V8_FLAGS, ...sourceNodeArgs(ROOT)];

/** Whether this test process runs a bundled test file (npm test), not its sources (scripts/bundleTests.ts). */
const runsBundled = path.resolve(process.argv[1] ?? '').startsWith(path.join(ROOT, TEST_BUNDLE_DIR) + path.sep);

/**
 * The node arguments that run operator script `script` (`scripts/<name>.ts`) with the arguments
 * after it: from the bundle npm test writes beside the test files when this test runs from there
 * (TEST_OPERATOR_SCRIPTS: about 0.7 CPU s less a run than through tsx), else as package.json runs
 * it (SCRIPT_NODE_ARGS).
 */
export function scriptArgs(script: string, ...args: string[]): string[] {
  if (runsBundled && TEST_OPERATOR_SCRIPTS.includes(script)) return [...TEST_V8_FLAGS, path.join(ROOT, bundledTest(script)), ...args];
  return [...SCRIPT_NODE_ARGS, script, ...args];
}
