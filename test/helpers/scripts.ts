import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The node arguments before an operator script's file, as `npm run <script>` runs it (package.json):
 * through tsx, tronweb from the bundle's vendored file when current (scripts/vendoredTronweb.mjs).
 */
export const SCRIPT_NODE_ARGS = ['--import', 'tsx', '--import', path.join(ROOT, 'scripts', 'vendoredTronweb.mjs')];
