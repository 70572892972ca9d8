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
const tests = run({ files, concurrency: Number(concurrency) });
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
