import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startLoop, type Loop } from '@/lib/worker/loop';
import { IdleTurns, Wakeup } from '@/lib/worker/wake';

const HOUR_MS = 3_600_000;

/** Resolves with what `promise` gives, or with 'still waiting' after `ms`: a missed wake is a failure, not a stuck suite. */
const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, delay(ms, 'still waiting' as const, { ref: false })]);

/** A job idle for an hour after each step that finds nothing, counting its steps; `nth(n)` resolves when step n begins. */
function idleJob(wakeup: Wakeup, rounds: ((n: number) => Promise<boolean> | boolean)[] = [], idle: { ms: number; turns?: IdleTurns } = { ms: HOUR_MS }) {
  let steps = 0;
  const waiting = new Map<number, () => void>();
  const begun = new Map<number, Promise<void>>();
  const nth = (n: number) => {
    if (!begun.has(n)) begun.set(n, steps >= n ? Promise.resolve() : new Promise<void>((r) => waiting.set(n, r)));
    return begun.get(n)!;
  };
  const loop: Loop = startLoop('test', idle.ms, async () => {
    steps += 1;
    waiting.get(steps)?.();
    return (await rounds[steps - 1]?.(steps)) ?? false;
  }, wakeup, idle.turns);
  return { loop, nth, steps: () => steps };
}

describe('a worker job sleeps when idle and is woken when there may be work for it (issue 41)', () => {
  it('a step that changed a state through a door wakes the other idle jobs of its worker', async () => {
    const wakeup = new Wakeup();
    const other = idleJob(wakeup);
    await other.nth(1);
    // The door (changePaymentState and the others) notes progress inside the step it runs in.
    const mover = idleJob(wakeup, [async () => { await delay(5); wakeup.noteProgress(); return true; }]);
    assert.equal(await within(other.nth(2).then(() => 'woken'), 10_000), 'woken', 'the idle job ran again before its hour was up');
    await Promise.all([other.loop.stop(), mover.loop.stop()]);
  });

  it('a row let go until later wakes the job that let it go when it is due, and no other', async () => {
    const wakeup = new Wakeup();
    const other = idleJob(wakeup);
    await other.nth(1);
    // workThrough releases a waiting payment for a poll interval and asks to be woken then.
    const waiter = idleJob(wakeup, [() => { wakeup.after(30); return false; }]);
    assert.equal(await within(waiter.nth(2).then(() => 'woken'), 10_000), 'woken', 'the job that let the row go looked at it again when due');
    assert.equal(other.steps(), 1, 'the other idle job slept on');
    await Promise.all([other.loop.stop(), waiter.loop.stop()]);
  });

  it('a step that only looked again at a waiting row (work, but no state changed) wakes no one', async () => {
    const wakeup = new Wakeup();
    const other = idleJob(wakeup);
    await other.nth(1);
    const looker = idleJob(wakeup, [() => true, () => true]);
    await looker.nth(3);
    await delay(20);
    assert.equal(other.steps(), 1, 'the other idle job slept on');
    await Promise.all([other.loop.stop(), looker.loop.stop()]);
  });

  it('a wake that comes while a job is in its step is not lost: the job runs again after it instead of sleeping', async () => {
    const wakeup = new Wakeup();
    let inStep!: () => void;
    const stepRunning = new Promise<void>((r) => (inStep = r));
    let release!: () => void;
    const stepMayEnd = new Promise<void>((r) => (release = r));
    const slow = idleJob(wakeup, [async () => { inStep(); await stepMayEnd; return false; }]);
    await stepRunning;
    // A scanner recorded a payment while the slow job was in its step.
    wakeup.wake();
    release();
    assert.equal(await within(slow.nth(2).then(() => 'ran again'), 10_000), 'ran again');
    await slow.loop.stop();
  });
});

describe('loops that do the same work side by side look for it in turn while idle (issue 41)', () => {
  const IDLE_MS = 20;
  // Stopped after each case, passed or failed: a loop left running would hold the file open.
  let running: Loop[] = [];
  afterEach(async () => {
    await Promise.all(running.map((loop) => loop.stop()));
    running = [];
  });
  /** `count` loops sharing one IdleTurns, each idle `ms`; `rounds[i]` are loop i's steps. */
  const team = (wakeup: Wakeup, count: number, rounds: ((n: number) => Promise<boolean> | boolean)[][] = [], ms = IDLE_MS) => {
    const turns = new IdleTurns();
    const jobs = Array.from({ length: count }, (_, i) => idleJob(wakeup, rounds[i] ?? [], { ms, turns }));
    running.push(...jobs.map((job) => job.loop));
    return jobs;
  };
  const total = (jobs: ReturnType<typeof team>) => jobs.reduce((sum, job) => sum + job.steps(), 0);

  it('each takes its turn, and together they look about once an interval, not once each', async () => {
    const wakeup = new Wakeup();
    const started = Date.now();
    const jobs = team(wakeup, 4);
    // Every one has looked again at its turn: three turns of the others between two of its own.
    await Promise.all(jobs.map((job) => job.nth(3)));
    const elapsed = Date.now() - started;
    // Four first steps, then one a turn; a loaded machine only makes turns later, never more of them.
    assert.ok(total(jobs) <= 4 + Math.ceil(elapsed / IDLE_MS) + 1, `${total(jobs)} steps in ${elapsed} ms; on their own, four loops would have made about ${4 + (4 * elapsed) / IDLE_MS}`);
  });

  it('a wake reaches every one of them, not only the one whose turn it is', async () => {
    const wakeup = new Wakeup();
    // Turns an hour apart: only the wake can bring them back.
    const jobs = team(wakeup, 3, [], HOUR_MS);
    await Promise.all(jobs.map((job) => job.nth(1)));
    const before = jobs.map((job) => job.steps());
    wakeup.wake();
    assert.deepEqual(await within(Promise.all(jobs.map((job, i) => job.nth(before[i]! + 1))).then(() => 'all woken'), 10_000), 'all woken');
  });

  it('one held in a long step does not hold up the others: they go on taking turns', async () => {
    const wakeup = new Wakeup();
    let release!: () => void;
    const held = new Promise<boolean>((r) => (release = () => r(false)));
    // The first loop's second step waits (a payment waiting on the node); the other two keep looking.
    const jobs = team(wakeup, 3, [[() => false, () => held]]);
    running.unshift({ stop: async () => release() });
    await jobs[0]!.nth(2);
    assert.equal(await within(Promise.all([jobs[1]!.nth(3), jobs[2]!.nth(3)]).then(() => 'looked'), 10_000), 'looked');
    assert.equal(jobs[0]!.steps(), 2, 'the held loop is still in its step');
  });

  it('stopped, none of them holds the process: their turns end with them', async () => {
    const wakeup = new Wakeup();
    const jobs = team(wakeup, 2);
    await Promise.all(jobs.map((job) => job.nth(2)));
    await Promise.all(jobs.map((job) => job.loop.stop()));
    const after = total(jobs);
    await delay(5 * IDLE_MS);
    assert.equal(total(jobs), after, 'no turn came after the stop');
  });
});
