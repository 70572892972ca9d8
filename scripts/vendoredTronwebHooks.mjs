// The resolve hook of vendoredTronweb.mjs, run on Node's loader thread.
import { statSync } from 'node:fs';

const vendored = new URL('../dist/tronweb.mjs', import.meta.url);
const installed = new URL('../node_modules/tronweb/package.json', import.meta.url);

/** The vendored file is used when it was written after the installed package was. */
function current() {
  const file = statSync(vendored, { throwIfNoEntry: false });
  const pkg = statSync(installed, { throwIfNoEntry: false });
  return file !== undefined && pkg !== undefined && file.mtimeMs >= pkg.mtimeMs;
}

const useVendored = current();

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'tronweb' && useVendored) return { url: vendored.href, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
