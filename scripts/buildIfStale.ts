import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundleIfStale } from './bundle';

/**
 * `npm start` serves the existing `next build` and builds only when there is none or it is
 * older than the sources it was built from (issue 27, finding 1: a restart that rebuilt took
 * 100 s to healthy instead of 26-45 s). `npm run build` always builds.
 *
 * "Older" compares the build's BUILD_ID (written by every `next build`) with the newest
 * modification time of what Next compiles: app/, components/, lib/ (the generated Prisma
 * client included), public/, and the build's configuration and lock files. The bundle of
 * server.ts and the worker (scripts/bundle.ts, dist/) is written again by the same rule, over
 * the inputs it lists.
 */
const BUILD_INPUT_DIRS = ['app', 'components', 'lib', 'public'];
const BUILD_INPUT_FILES = ['next.config.mjs', 'postcss.config.mjs', 'tsconfig.json', 'tsconfig.next.json', 'package.json', 'package-lock.json'];

function newestMtimeMs(file: string): number {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A directory's own mtime changes when an entry is removed or renamed: that changes the build too.
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestMtimeMs(path.join(file, entry)));
  return newest;
}

/** Why a build is needed in `root` with output in `distDir`, or null when the existing one is current. */
export function staleBuildReason(root: string, distDir = '.next'): string | null {
  const buildId = path.join(root, distDir, 'BUILD_ID');
  if (!existsSync(buildId)) return `no build in ${distDir}`;
  const builtAt = statSync(buildId).mtimeMs;
  const newest = Math.max(...[...BUILD_INPUT_DIRS, ...BUILD_INPUT_FILES].map((f) => newestMtimeMs(path.join(root, f))));
  return newest > builtAt ? 'the sources changed since the last build' : null;
}

/**
 * What `npm start` does first (scripts/run.ts, issue 34, item 2: in the runner's own process, so
 * that npm start is one process a signal stops): `next build` of `root` when its build in
 * `distDir` is missing or stale, then the bundle when it is. `run` runs node with the given
 * arguments to its end (the runner's: a SIGTERM or SIGINT stops the build too).
 */
export async function buildIfStale(root: string, distDir: string, run: (args: string[]) => Promise<void>): Promise<void> {
  const reason = staleBuildReason(root, distDir);
  if (reason === null) {
    console.log('start: serving the existing build (npm run build rebuilds it)');
  } else {
    console.log(`start: building first: ${reason}`);
    await run([path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build']);
  }
  const bundled = bundleIfStale(root);
  console.log(bundled === null ? 'start: serving the existing bundle in dist/' : `start: bundled server and worker into dist/: ${bundled}`);
}
