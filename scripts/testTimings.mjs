// A reporter for Node's test runner (`--test-reporter=./scripts/testTimings.mjs`), beside the
// usual one: it writes one JSON line, the counts the runner reports and each file's seconds, for
// the timing report of `npm test` (scripts/test.ts, issue 41).
export default async function* testTimings(source) {
  const files = new Map();
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const data = event.data;
    const file = data.file ?? '(unknown)';
    // A file's time: its top-level tests and suites, as the runner measured them.
    if (data.nesting === 0) files.set(file, (files.get(file) ?? 0) + (data.details?.duration_ms ?? 0));
    if (data.details?.type === 'suite') continue;
    if (data.skip || data.todo) counts.skipped++;
    else if (event.type === 'test:pass') counts.passed++;
    else counts.failed++;
  }
  yield `${JSON.stringify({ ...counts, files: [...files].map(([file, ms]) => ({ file, seconds: ms / 1000 })) })}\n`;
}
