// The resolve hook of vendoredTronweb.mjs, run on Node's loader thread.
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const vendored = new URL('dist/tronweb.mjs', root);
const meta = new URL('dist/meta.json', root);

/**
 * The vendored file is current by the rule the bundle is judged by (scripts/bundle.ts,
 * staleBundleReason), for its own inputs: the packages' files esbuild read to write it, as
 * dist/meta.json lists them (`vendoredInputs`), and the project's package-lock.json, none changed
 * since the bundle was written. A change to lib/ makes the bundle stale, not this file. (Run
 * outside tsx, this cannot import that TypeScript; what it reads is the same.)
 */
function current() {
  const written = statSync(meta, { throwIfNoEntry: false });
  if (!written || !statSync(vendored, { throwIfNoEntry: false })) return false;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(meta, 'utf8')).vendoredInputs.tronweb;
    if (!Array.isArray(inputs)) return false;
  } catch {
    return false;
  }
  const unchanged = (file, missing) => {
    const stat = statSync(new URL(file, root), { throwIfNoEntry: false });
    return stat === undefined ? missing : stat.mtimeMs <= written.mtimeMs;
  };
  // An input deleted makes it stale; a checkout without a lock file has nothing there to compare.
  return inputs.every((input) => unchanged(input, false)) && unchanged('package-lock.json', true);
}

const useVendored = current();

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'tronweb' && useVendored) return { url: vendored.href, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
