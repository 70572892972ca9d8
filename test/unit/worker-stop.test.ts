import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { startLoop } from '@/lib/worker/loop';

const HOUR_MS = 3_600_000;

/** Resolves with what `promise` gives, or with 'still waiting' after `ms`: a hang is a failure, not a stuck suite. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, delay(ms, 'still waiting' as const, { ref: false })]);

describe('a worker loop stops when asked, whatever its step is doing', () => {
  it('a stop that comes while a step runs ends the loop after that step, not after the idle sleep that would follow it', async () => {
    let entered!: () => void;
    const stepRunning = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const stepMayEnd = new Promise<void>((r) => (release = r));
    let steps = 0;
    // Idle for an hour after a step that found no work, as the accounts job idles a minute.
    const loop = startLoop('test', HOUR_MS, async () => {
      steps += 1;
      entered();
      await stepMayEnd;
      return false;
    });
    await stepRunning;
    const stopped = loop.stop();
    release();
    assert.equal(await within(stopped.then(() => 'stopped'), 10_000), 'stopped', 'stop() returned after the running step ended');
    assert.equal(steps, 1, 'no step ran after the stop');
  });

  it('a stop during the idle sleep wakes it at once', async () => {
    let entered!: () => void;
    const slept = new Promise<void>((r) => (entered = r));
    const loop = startLoop('test', HOUR_MS, async () => {
      setImmediate(entered);
      return false;
    });
    await slept;
    assert.equal(await within(loop.stop().then(() => 'stopped'), 10_000), 'stopped');
  });

  it('a stop during the backoff after a failed step wakes it at once', async () => {
    let entered!: () => void;
    const failed = new Promise<void>((r) => (entered = r));
    const errors = console.error;
    console.error = () => undefined;
    try {
      const loop = startLoop('test', HOUR_MS, async () => {
        setImmediate(entered);
        throw new Error('node unreachable');
      });
      await failed;
      assert.equal(await within(loop.stop().then(() => 'stopped'), 10_000), 'stopped');
    } finally {
      console.error = errors;
    }
  });
});
