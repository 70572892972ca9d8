// One lane of npm test's node tests (scripts/test.ts, issue 41): `node --import tsx
// scripts/testLane.mjs <concurrency> <results file> <test files...>`. Node's `--test` sorts the
// files it is given by name; its run() keeps their order, so a lane's long files start first.
// The spec reporter goes to the terminal and ours (scripts/testTimings.mjs) to the results file;
// the exit code is 1 when any test failed, as `node --test` sets it.
import { createWriteStream } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import testTimings from './testTimings.mjs';

const [concurrency, results, ...files] = process.argv.slice(2);
if (!Number(concurrency) || !results || files.length === 0) {
  console.error('usage: node --import tsx scripts/testLane.mjs <concurrency> <results file> <test files...>');
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
const toTerminal = new PassThrough({ objectMode: true });
const toFile = new PassThrough({ objectMode: true });
tests.pipe(toTerminal);
tests.pipe(toFile);
const terminal = toTerminal.compose(spec);
terminal.pipe(process.stdout);
await Promise.all([finished(terminal), pipeline(Readable.from(testTimings(toFile)), createWriteStream(results))]);
process.exitCode = failed ? 1 : 0;
