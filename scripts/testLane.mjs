// One lane of npm test's node tests (scripts/test.ts, issue 41): `node --import tsx
// scripts/testLane.mjs <concurrency> <results file> <test files...>`. Node's `--test` sorts the
// files it is given by name; its run() keeps their order, so a lane's long files start first.
// The spec reporter goes to the terminal and ours (scripts/testTimings.mjs) to the results file;
// the exit code is 1 when any test failed, as `node --test` sets it.
import { createWriteStream, readFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import testTimings from './testTimings.mjs';

const args = process.argv.slice(2);
// `--draining-at=N`: tell the parent (npm test, over IPC) when every file has started and at most N
// still run, so the next lane can start on the cores this one's last files leave idle.
const drainingArg = args[0]?.startsWith('--draining-at=') ? args.shift() : undefined;
const drainingAt = drainingArg === undefined ? null : Number(drainingArg.slice('--draining-at='.length));
const [concurrency, results, ...files] = args;
if (!Number(concurrency) || !results || files.length === 0 || (drainingAt !== null && !Number.isInteger(drainingAt))) {
  console.error('usage: node --import tsx scripts/testLane.mjs [--draining-at=N] <concurrency> <results file> <test files...>');
  process.exit(2);
}
let failed = false;
// A file that never ends (a wait with no deadline, a handle left open) would hold the whole run until
// CI's own limit, printing nothing of where it stood: the CI run of 78eb008 stopped printing after
// the chain lane's first file and was cut at 5,400 s. Past FILE_TIMEOUT_MS a file fails with Node's
// "test timed out" and its process is killed, and the lane goes on. The longest file took 510 s in
// the slowest hour on record (docs/testing.md), so the limit leaves room for a busy machine.
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 1_500_000);
const tests = run({ files, concurrency: Number(concurrency), timeout: FILE_TIMEOUT_MS });
tests.on('test:fail', (data) => {
  if (!data.todo && !data.skip) failed = true;
});
if (drainingAt !== null && process.send) {
  watchDraining(tests, new Set(files), drainingAt, () => {
    console.log(`test lane: every file started and ${drainingAt} or fewer still run; npm test starts its next phase beside them`);
    process.send?.('draining');
  });
}
const toTerminal = new PassThrough({ objectMode: true });
const toFile = new PassThrough({ objectMode: true });
tests.pipe(toTerminal);
tests.pipe(toFile);
const terminal = toTerminal.compose(spec);
terminal.pipe(process.stdout);
// The terminal's readable side only: on Node 24 the composed stream's writable side never reports
// finishing, and the lane's top-level await was left unsettled (exit code 13) with every test passed.
await Promise.all([finished(terminal, { writable: false }), pipeline(Readable.from(testTimings(toFile)), createWriteStream(results))]);
process.exitCode = failed ? 1 : 0;

/**
 * Calls `draining` once, when every file has started and at most `at` of them still run. The
 * runner's events cannot tell when a file ends: it holds back a file's results until the files
 * before it have ended, and the long files go first. So this counts the runner's own children,
 * one process per running file, from Linux's /proc. Only when the next lane starts depends on it.
 */
function watchDraining(stream, files, at, draining) {
  const waiting = new Set(files); // not started yet
  stream.on('test:dequeue', (data) => {
    if (data.nesting !== 0 || !waiting.delete(data.name) || waiting.size > 0) return;
    const timer = setInterval(() => {
      if (runningFiles(files) > at) return;
      clearInterval(timer);
      draining();
    }, 1_000);
    timer.unref();
  });
}

/** How many of this process's children run one of `files` (Node's runner starts one per file). */
function runningFiles(files) {
  let children;
  try {
    children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return Infinity; // no /proc: the next lane starts when this one ends, as before
  }
  return children.filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((arg) => files.has(arg));
    } catch {
      return false; // ended since the list was read
    }
  }).length;
}
