// `node --import ./scripts/vendoredTronweb.mjs`: a process run from the sources through tsx (`npm run
// dev`'s web, worker and devnet, the runner, the operator scripts, the tests' processes) imports
// tronweb from the file the bundle vendors (dist/tronweb.mjs, scripts/bundle.ts, VENDORED) instead of
// node_modules, when that file is current: the same code, read as one file rather than some 300
// modules, each passed through tsx's hooks, about 1 s of CPU a process on this 2-core machine
// (issue 41). Without a current file (no `npm run build` yet, or tronweb installed since), it is
// node_modules' as before. The bundles import that file themselves.
import { register } from 'node:module';

register('./vendoredTronwebHooks.mjs', import.meta.url);
