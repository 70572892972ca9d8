import path from 'node:path';
import { sourceNodeArgs } from '@/scripts/bundle';
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
