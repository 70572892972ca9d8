import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_V8_FLAGS } from '../test/helpers/bundle';
import { sourceNodeArgs } from './bundle';
import { bundledTest, sourceOfBundledTest } from './bundleTests';

/**
 * `npm test`: every check, in lanes that stop at the first failure (issue 41), then a timing
 * report: each phase's seconds, the ten slowest test files and the counts the runners reported,
 * so a slower suite is seen the day it lands. The phases are the same commands as before.
 */
interface Phase {
  name: string;
  /** A function when the command is decided as the phase starts (a lane's files at a time). */
  command: string[] | (() => string[]);
  env?: Record<string, string>;
  /** Run at the same time as the phases before it that say so too (each single-threaded); the run stops if any fails. */
  beside?: boolean;
  /**
   * A lane's: the next phase starts once every file of this one has started and at most half as
   * many as run at once still run (scripts/testLane.mjs tells, `--draining-at`), not when its last
   * file ends.
   */
  nextStartsAtHalf?: boolean;
}

/** Linux reports CPU time in USER_HZ ticks, 100 a second on every architecture it runs Node on. */
const TICKS_PER_SECOND = 100;

const work = mkdtempSync(path.join(tmpdir(), 'npm-test-'));
const browserResults = path.join(work, 'browser.json');

/**
 * The node tests' lanes, run in this order, each stopping the run when it fails: the folder a test
 * lives in says its lane (docs/testing.md). Units and API tests start no worker and wait on no
 * chain's finality, so they run first and more at once; the chain lane's files each run a devnet,
 * the web, workers, or a whole `npm start`, and share the two cores with the devnet's blocks.
 */
const LANES: { name: string; folders: string[]; concurrency: number; besideAnother?: number; nextStartsAtHalf?: boolean }[] = [
  // One lane since 2026-11-30 (docs/testing.md, "Fifteen minutes"): each was bound by the CPU, and
  // the units' lane ended on its three longest files with a core idle, before the API lane began.
  { name: 'unit and api tests', folders: ['unit', 'api'], concurrency: 3 },
  // Four at a time since 2026-11-30 (docs/testing.md, "Fifteen minutes"): at three the two cores
  // were 13 % idle, waiting on blocks and expiring transactions; at four 3 %, and the lane shorter.
  // Three while another npm test runs on this machine: two suites at four (eight chain files on two
  // cores, load above 20) timed a gas return out in reconcile-proof; at three each, both passed.
  // The browser tests start when half the lane's files or fewer still run (two of four): the lane's
  // last 50 s had two files or fewer with the cores 43-92 % idle (2026-12-04, docs/testing.md,
  // "The chain lane's last files").
  { name: 'chain tests', folders: ['chain', 'run'], concurrency: 4, besideAnother: 3, nextStartsAtHalf: true },
];

/**
 * Each running `npm test` on this machine leaves a file named by its pid here while it runs, so a
 * lane can see that another suite shares the cores (CI beside a developer's run, issue 41). A file
 * whose process is gone (a suite killed by a signal leaves its own) is removed when seen.
 */
const SUITES_DIR = path.join(tmpdir(), 'npm-test-suites');
mkdirSync(SUITES_DIR, { recursive: true });
const ownMarker = path.join(SUITES_DIR, String(process.pid));
writeFileSync(ownMarker, `${process.cwd()}\n`);
process.on('exit', () => rmSync(ownMarker, { force: true }));

/** The other `npm test` runs on this machine now, by pid. */
function otherSuites(): number[] {
  const pids = readdirSync(SUITES_DIR).map(Number).filter((pid) => Number.isInteger(pid) && pid !== process.pid);
  // A marker whose suite died without removing it (killed) is removed here, so it is not counted again.
  for (const pid of pids.filter((pid) => !alive(pid))) rmSync(path.join(SUITES_DIR, String(pid)), { force: true });
  return pids.filter(alive);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** How many of a lane's files run at once: fewer while another suite shares the cores. */
function filesAtOnce(lane: (typeof LANES)[number]): number {
  if (lane.besideAnother === undefined) return lane.concurrency;
  const others = otherSuites();
  if (others.length === 0) return lane.concurrency;
  console.log(`npm test: ${lane.name}, ${lane.besideAnother} files at a time, not ${lane.concurrency}: another npm test runs on this machine (pid ${others.join(', ')})`);
  return lane.besideAnother;
}

/**
 * The longest files (from the timing report), started first in their lane, longest first: a lane
 * ends when its last file does, so one long file started last would run alone at the end.
 */
// As measured in the chain lane, two files at a time, on 2026-11-29 (s): settlement 150, embedded-default 119,
// energy-pool 98, payouts 93, fast-forward 66, send-binding 57, payouts-safety 57, energy-rental 53,
// reconcile-proof 53, energy-safety 49, worker 43, reconcile-wallets 42.
// As measured on 2026-11-30 in the api lane (three at a time) and the unit lane (four) before they were one (s): dashboard 44, audit-log 33, hardening 33,
// passkeys 28, members 22, operator-probe 19, two-factor 18, fuzz 14, webhook-fairness 14, logs 14, database 12.
const LONG_FILES = [
  ...['chain/settlement', 'run/embedded-default', 'chain/energy-pool', 'chain/payouts', 'chain/fast-forward', 'chain/send-binding', 'chain/payouts-safety', 'chain/energy-rental', 'chain/reconcile-proof', 'chain/energy-safety', 'chain/worker', 'chain/reconcile-wallets', 'run/supervision'],
  ...['api/dashboard', 'api/audit-log', 'api/hardening', 'api/passkeys', 'api/members', 'api/operator-probe', 'api/two-factor', 'api/fuzz', 'unit/webhook-fairness', 'unit/logs', 'unit/database'],
];

const phases: Phase[] = [
  // Next's build leaves its own type check out (NEXT_SKIP_TYPECHECK) and writes the route types
  // under .next/types, which the one type check after it covers with everything else.
  { name: 'build', command: ['npm', 'run', 'build'], env: { NEXT_SKIP_TYPECHECK: '1' } },
  // ESLint and tsc each use one core: on two, side by side they take about as long as the longer.
  { name: 'lint', command: ['npm', 'run', 'lint'], beside: true },
  { name: 'typecheck', command: ['npm', 'run', 'typecheck'], beside: true },
  // Each node test file bundled with what it imports (scripts/bundleTests.ts): its process loads
  // one file, not tsx and its helpers module by module. A second or two, beside lint and typecheck.
  { name: 'test bundle', command: ['node', ...sourceNodeArgs(path.resolve(import.meta.dirname, '..')), 'scripts/bundleTests.ts', ...LANES.flatMap((lane) => laneFiles(lane.folders))], beside: true },
  ...LANES.map((lane) => ({
    name: lane.name,
    // Node's runner in the files' order (`node --test` would sort them by name): the usual report
    // on the terminal, and ours (scripts/testTimings.mjs) to a file. The files are the bundled ones,
    // so neither the runner nor its test processes load tsx; `--liftoff-only` (test/helpers/bundle.ts,
    // TEST_V8_FLAGS) the test processes inherit.
    command: () => {
      const atOnce = filesAtOnce(lane);
      const draining = lane.nextStartsAtHalf ? [`--draining-at=${Math.floor(atOnce / 2)}`] : [];
      return ['node', ...TEST_V8_FLAGS, 'scripts/testLane.mjs', ...draining, String(atOnce), laneResults(lane.name), ...laneFiles(lane.folders).map(bundledTest)];
    },
    nextStartsAtHalf: lane.nextStartsAtHalf,
  })),
  // Three Playwright workers (playwright.config.ts), two while another npm test shares the cores.
  { name: 'browser tests', command: () => ['npx', 'playwright', 'test', '--reporter=list,json', ...(otherSuites().length > 0 ? ['--workers=2'] : [])], env: { PLAYWRIGHT_JSON_OUTPUT_NAME: browserResults } },
];

function laneResults(name: string): string {
  return path.join(work, `${name.replace(/\W+/g, '-')}.jsonl`);
}

/** A lane's test files: the long ones first (longest first), then the rest in name order. */
function laneFiles(folders: string[]): string[] {
  const files = folders.flatMap((folder) => readdirSync(path.join('test', folder)).filter((f) => f.endsWith('.test.ts')).map((f) => `${folder}/${f.slice(0, -'.test.ts'.length)}`));
  const long = LONG_FILES.filter((f) => files.includes(f));
  return [...long, ...files.filter((f) => !long.includes(f)).sort()].map((f) => path.join('test', `${f}.test.ts`));
}

// A test file outside every lane would never run; a long file that moved would silently lose its place.
const inLanes = new Set(LANES.flatMap((lane) => lane.folders));
const strays = readdirSync('test', { withFileTypes: true }).filter((e) => (e.isFile() && e.name.endsWith('.test.ts')) || (e.isDirectory() && !inLanes.has(e.name) && !['helpers', 'generated'].includes(e.name)));
const lost = LONG_FILES.filter((f) => !LANES.some((lane) => laneFiles(lane.folders).includes(path.join('test', `${f}.test.ts`))));
if (strays.length > 0 || lost.length > 0) {
  console.error(`npm test: ${strays.map((e) => `test/${e.name} is in no lane (test/${[...inLanes].join(', test/')})`).concat(lost.map((f) => `LONG_FILES names test/${f}.test.ts, which does not exist`)).join('; ')}`);
  process.exit(1);
}

interface Running {
  /** When the next step may start: this phase ended, or (a lane with `nextStartsAtHalf`) is draining. */
  ready: Promise<void>;
  exit: Promise<number>;
}

function run(phase: Phase): Running {
  const command = typeof phase.command === 'function' ? phase.command() : phase.command;
  // An IPC channel for the lane that tells when it is draining (scripts/testLane.mjs, `--draining-at`).
  const child = spawn(command[0]!, command.slice(1), { stdio: ['inherit', 'inherit', 'inherit', ...(phase.nextStartsAtHalf ? (['ipc'] as const) : [])], env: { ...process.env, ...phase.env } });
  const exit = new Promise<number>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  const draining = new Promise<void>((resolve) => child.on('message', (message) => message === 'draining' && resolve()));
  return { exit, ready: Promise.race([draining, exit.then(() => undefined)]) };
}

const seconds = new Map<string, number>();
const cpuSeconds = new Map<string, number>();
const failures: string[] = [];
const started = Date.now();
const machineAtStart = machineCpuSeconds();
let childrenCpuSoFar = childrenCpuSeconds();
// Consecutive phases marked `beside` run together; every other phase alone, in order.
const steps: Phase[][] = [];
for (const phase of phases) {
  const last = steps.at(-1);
  if (phase.beside && last?.[0]?.beside) last.push(phase);
  else steps.push([phase]);
}
// A step starts when each phase of the step before has ended or is draining; once a phase has
// failed no new step starts, and the run ends when every started phase has (none is cut short).
const running: Running[] = [];
for (const step of steps) {
  if (failures.length > 0) break;
  const now = step.map((phase) => {
    const t0 = Date.now();
    const r = run(phase);
    void r.exit.then((code) => {
      seconds.set(phase.name, (Date.now() - t0) / 1000);
      // What this phase's processes spent, read as it ends: the CPU of the children waited for since
      // the last phase ended is this one's (phases end seconds apart, never in one wait).
      const childrenCpu = childrenCpuSeconds();
      if (childrenCpu !== null && childrenCpuSoFar !== null) cpuSeconds.set(phase.name, childrenCpu - childrenCpuSoFar);
      childrenCpuSoFar = childrenCpu;
      if (code !== 0) failures.push(`${phase.name} (exit ${code})`);
    });
    return r;
  });
  running.push(...now);
  await Promise.all(now.map((r) => r.ready));
}
await Promise.all(running.map((r) => r.exit));
const failed = failures.length > 0 ? failures.join(', ') : null;
report();
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

function report(): void {
  const lines = ['', '== npm test: timing report =='];
  const ran = phases.filter((p) => seconds.has(p.name));
  lines.push(`phases (s): ${ran.map((p) => `${p.name} ${seconds.get(p.name)!.toFixed(0)}`).join(', ')}; total ${((Date.now() - started) / 1000).toFixed(0)}`);
  lines.push(...cpuReport(ran));
  const lanes = LANES.map((lane) => readJson<NodeResults>(laneResults(lane.name), true)).filter((r): r is NodeResults => r !== null);
  const node: NodeResults | null = lanes.length === 0 ? null : { passed: sum(lanes, 'passed'), failed: sum(lanes, 'failed'), skipped: sum(lanes, 'skipped'), files: lanes.flatMap((r) => r.files) };
  if (node) {
    lines.push('slowest test files (s):');
    for (const f of [...node.files].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) lines.push(`  ${f.seconds.toFixed(0).padStart(5)}  ${sourceOfBundledTest(path.relative(process.cwd(), f.file))}`);
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

/**
 * The CPU the run spent (issue 41): two suites side by side keep the cores busy, so they take about
 * what both spend divided by the cores, and this, not a quiet run's seconds, tells what a pair will
 * take (if anything a little less: beside another a suite runs fewer files at once; 1,646 CPU s a
 * suite in a pair against 1,705 alone in one hour, about the same in another, docs/testing.md).
 * Each phase's figure is its processes' user and system time (those that ended and were waited for
 * by their parents); PostgreSQL's server is the machine's, not a phase's, and is in the machine's
 * figure, as is anything else running then (another suite beside this one too).
 */
function cpuReport(ran: Phase[]): string[] {
  const lines: string[] = [];
  const measured = ran.filter((p) => cpuSeconds.has(p.name));
  if (measured.length > 0) {
    const phasesCpu = measured.reduce((n, p) => n + cpuSeconds.get(p.name)!, 0);
    lines.push(`phases' processes (CPU s): ${measured.map((p) => `${p.name} ${cpuSeconds.get(p.name)!.toFixed(0)}`).join(', ')}; in all ${phasesCpu.toFixed(0)}`);
  }
  const end = machineCpuSeconds();
  if (machineAtStart && end) {
    const busy = end.busy - machineAtStart.busy;
    const idle = end.idle - machineAtStart.idle;
    const cores = availableParallelism();
    // Only when nothing else ran: then two such runs at once need both their CPU from these cores.
    lines.push(`the machine over the run (CPU s, ${cores} cores): ${busy.toFixed(0)} busy, ${idle.toFixed(0)} idle; if nothing else ran, two such runs at once take about ${((2 * busy) / cores).toFixed(0)} s`);
  }
  return lines;
}

/** CPU seconds (user and system) of this process's children that ended and were waited for, with theirs (Linux's /proc); null elsewhere. */
function childrenCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After the command's name in parentheses: state is field 3, cutime 16 and cstime 17 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The whole machine's CPU seconds since boot, busy (user, nice, system, interrupts, steal) and idle (with I/O wait), from /proc/stat; null elsewhere. */
function machineCpuSeconds(): { busy: number; idle: number } | null {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number) as number[];
    return { busy: (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND, idle: (idle! + iowait!) / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

interface NodeResults {
  passed: number;
  failed: number;
  skipped: number;
  files: { file: string; seconds: number }[];
}

function sum(results: NodeResults[], key: 'passed' | 'failed' | 'skipped'): number {
  return results.reduce((n, r) => n + r[key], 0);
}

function readJson<T>(file: string, lastLine: boolean): T | null {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return JSON.parse(lastLine ? text.split('\n').at(-1)! : text) as T;
  } catch {
    return null;
  }
}
