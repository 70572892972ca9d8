import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * `npm test`: every check, in lanes that stop at the first failure (issue 41), then a timing
 * report: each phase's seconds, the ten slowest test files and the counts the runners reported,
 * so a slower suite is seen the day it lands. The phases are the same commands as before.
 */
interface Phase {
  name: string;
  command: string[];
  env?: Record<string, string>;
}

const work = mkdtempSync(path.join(tmpdir(), 'npm-test-'));
const nodeResults = path.join(work, 'node.jsonl');
const browserResults = path.join(work, 'browser.json');
const phases: Phase[] = [
  { name: 'lint', command: ['npm', 'run', 'lint'] },
  { name: 'typecheck', command: ['npm', 'run', 'typecheck'] },
  { name: 'build', command: ['npm', 'run', 'build'] },
  {
    name: 'node tests',
    // The usual report on the terminal, and ours (scripts/testTimings.mjs) to a file.
    command: ['node', '--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/testTimings.mjs', `--test-reporter-destination=${nodeResults}`, ...testFiles()],
  },
  { name: 'browser tests', command: ['npx', 'playwright', 'test', '--reporter=list,json'], env: { PLAYWRIGHT_JSON_OUTPUT_NAME: browserResults } },
];

/** test/*.test.ts, as the shell's glob gave them before. */
function testFiles(): string[] {
  return readdirSync('test').filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join('test', f));
}

function run(phase: Phase): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(phase.command[0]!, phase.command.slice(1), { stdio: 'inherit', env: { ...process.env, ...phase.env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const seconds: [string, number][] = [];
let failed: string | null = null;
const started = Date.now();
for (const phase of phases) {
  const t0 = Date.now();
  const code = await run(phase);
  seconds.push([phase.name, (Date.now() - t0) / 1000]);
  if (code !== 0) {
    failed = `${phase.name} (exit ${code})`;
    break;
  }
}
report();
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

function report(): void {
  const lines = ['', '== npm test: timing report =='];
  lines.push(`phases (s): ${seconds.map(([name, s]) => `${name} ${s.toFixed(0)}`).join(', ')}; total ${((Date.now() - started) / 1000).toFixed(0)}`);
  const node = readJson<{ passed: number; failed: number; skipped: number; files: { file: string; seconds: number }[] }>(nodeResults, true);
  if (node) {
    lines.push('slowest test files (s):');
    for (const f of [...node.files].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) lines.push(`  ${f.seconds.toFixed(0).padStart(5)}  ${path.relative(process.cwd(), f.file)}`);
    lines.push(`node tests: ${node.passed} passed, ${node.failed} failed, ${node.skipped} skipped`);
  }
  const browser = readJson<{ stats: { expected: number; unexpected: number; flaky: number; skipped: number } }>(browserResults, false);
  if (browser) lines.push(`browser tests: ${browser.stats.expected + browser.stats.flaky} passed, ${browser.stats.unexpected} failed, ${browser.stats.skipped} skipped`);
  if (failed) lines.push(`stopped at: ${failed}`);
  const passed = (node?.passed ?? 0) + (browser ? browser.stats.expected + browser.stats.flaky : 0);
  const failedCount = (node?.failed ?? 0) + (browser?.stats.unexpected ?? 0) + (failed && !node?.failed && !browser?.stats.unexpected ? 1 : 0);
  lines.push(`total: ${passed} passed, ${failedCount} failed`);
  console.log(lines.join('\n'));
}

function readJson<T>(file: string, lastLine: boolean): T | null {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return JSON.parse(lastLine ? text.split('\n').at(-1)! : text) as T;
  } catch {
    return null;
  }
}
