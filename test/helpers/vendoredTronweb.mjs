// `node --import ./test/helpers/vendoredTronweb.mjs`: the test processes of npm test's lanes
// (scripts/test.ts) import tronweb from the file the bundle vendors (dist/tronweb.mjs,
// scripts/bundle.ts, VENDORED) instead of node_modules: the same code, read as one file rather than
// some 300 modules, each passed through tsx's hooks: about 1 s of CPU less for each test file that
// imports it (issue 41). The web servers, workers and devnets the tests start run the bundles,
// which import that file themselves.
import { register } from 'node:module';

register('./vendoredTronwebHooks.mjs', import.meta.url);
