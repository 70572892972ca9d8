import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startLoop, type Loop } from '@/lib/worker/loop';
import { Wakeup } from '@/lib/worker/wake';

const HOUR_MS = 3_600_000;

/** Resolves with what `promise` gives, or with 'still waiting' after `ms`: a missed wake is a failure, not a stuck suite. */
const within = <T>(promise: Promise<T>, ms: number) => Promise.race([promise, delay(ms, 'still waiting' as const, { ref: false })]);

/** A job idle for an hour after each step that finds nothing, counting its steps; `nth(n)` resolves when step n begins. */
function idleJob(wakeup: Wakeup, rounds: ((n: number) => Promise<boolean> | boolean)[] = []) {
  let steps = 0;
  const waiting = new Map<number, () => void>();
  const begun = new Map<number, Promise<void>>();
  const nth = (n: number) => {
    if (!begun.has(n)) begun.set(n, steps >= n ? Promise.resolve() : new Promise<void>((r) => waiting.set(n, r)));
    return begun.get(n)!;
  };
  const loop: Loop = startLoop('test', HOUR_MS, async () => {
    steps += 1;
    waiting.get(steps)?.();
    return (await rounds[steps - 1]?.(steps)) ?? false;
  }, wakeup);
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
