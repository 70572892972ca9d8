import { AsyncLocalStorage } from 'node:async_hooks';
import { derived } from '@/lib/singletons';

/** One job's loop as its wakeup knows it. */
interface LoopState {
  /** Counts this loop's wakes: compared before and after a step, so a wake during the step is not lost. */
  generation: number;
  /** Ends the loop's idle sleep, while it sleeps. */
  wake?: () => void;
  /** Set by `noteProgress()` during the loop's step. */
  progressed: boolean;
  /** Pending wakes by the 10 ms they fall in: rows let go together wake the loop once. */
  timers: Map<number, NodeJS.Timeout>;
}

/**
 * Wakes a worker's idle jobs when there may be work for them (issue 41). A job that finds nothing
 * sleeps WORKER_IDLE_MS and is woken sooner:
 * - all jobs, when a step of any of them changed a state through a door (`noteProgress`: a
 *   forwarded payment has a webhook to send, a closed one a gas return), or a scanner recorded a
 *   payment or top-up (`wake`);
 * - the job that let a row go until later, when it is due again (`after`: a payment waiting for
 *   its forward's confirmation, lib/worker/lease.ts; a webhook retry).
 * A step that only looked again at a waiting row wakes no one: eighteen jobs woken every 50 ms
 * cost as much as eighteen jobs polling every 50 ms, a third of a core and a fifth of PostgreSQL's.
 *
 * One per worker process (`workerWakeup()`); another process's work reaches it at its next idle round.
 */
export class Wakeup {
  readonly #loops = new Set<LoopState>();
  /** The loop whose step is running, for `after` and `noteProgress` called deep inside it. */
  readonly #running = new AsyncLocalStorage<LoopState>();
  #stopped = false;

  /** A loop's place in the wakeup (lib/worker/loop.ts). */
  join(): LoopState {
    const state: LoopState = { generation: 0, progressed: false, timers: new Map() };
    this.#loops.add(state);
    return state;
  }

  leave(state: LoopState): void {
    for (const timer of state.timers.values()) clearTimeout(timer);
    state.timers.clear();
    this.#loops.delete(state);
    poke(state);
  }

  /** Runs one step of `state`'s loop; says whether it made progress another job may have waited for. */
  async step(state: LoopState, step: () => Promise<boolean>): Promise<{ worked: boolean; progressed: boolean }> {
    state.progressed = false;
    const worked = await this.#running.run(state, step);
    return { worked, progressed: state.progressed };
  }

  /** Wakes every job now; a job in its step runs once more after it. */
  wake(): void {
    for (const state of this.#loops) poke(state);
  }

  /** Marks the running step as progress (a door changed a state): every job is woken after it. */
  noteProgress(): void {
    const state = this.#running.getStore();
    if (state) state.progressed = true;
  }

  /** Wakes, in `ms`, the job whose step is running (every job, when called outside one): a row it let go is due again then. */
  after(ms: number): void {
    if (this.#stopped) return;
    const running = this.#running.getStore();
    for (const state of running ? [running] : this.#loops) {
      const slot = Math.ceil((Date.now() + Math.max(0, ms)) / 10);
      if (state.timers.has(slot)) continue;
      state.timers.set(
        slot,
        setTimeout(() => {
          state.timers.delete(slot);
          poke(state);
        }, slot * 10 - Date.now()),
      );
    }
  }

  /**
   * Sleeps `ms`, or until a wake; at once when a wake came since `generation` was read. With
   * `turns`, until a wake or the loop's turn to look (`IdleTurns`).
   */
  sleep(state: LoopState, ms: number, generation: number, turns?: IdleTurns): Promise<void> {
    if (this.#stopped || generation !== state.generation) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = turns ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        turns?.leave(done);
        state.wake = undefined;
        resolve();
      };
      state.wake = done;
      turns?.join(done, ms);
    });
  }

  /** Ends every sleep and timer, for a clean stop: nothing holds the process. */
  stop(): void {
    this.#stopped = true;
    for (const state of [...this.#loops]) this.leave(state);
  }
}

/**
 * Loops that do the same work side by side (the PAYMENT_WORKERS payments loops, a worker's webhook
 * senders of a kind): while idle they look for work in turn, the one asleep longest every idle
 * interval, so together they ask as often as one loop would, not once each (issue 41: four
 * payments loops and six senders were ten of the sixteen questions an idle worker asked each idle
 * round). Work another process made is still found within the interval while any of them sleeps,
 * and one that finds work goes on at once, as any loop; a wake (work of this worker, a row due
 * again) reaches each as before.
 */
export class IdleTurns {
  /** The sleeping loops' wakes, the one asleep longest first. */
  readonly #sleeping: (() => void)[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** A loop falls asleep: woken at its turn, one loop every `ms` while any sleeps. */
  join(wake: () => void, ms: number): void {
    this.#sleeping.push(wake);
    this.#timer ??= setInterval(() => this.#sleeping[0]?.(), ms);
  }

  /** A loop woke, by its turn or otherwise. */
  leave(wake: () => void): void {
    const at = this.#sleeping.indexOf(wake);
    if (at >= 0) this.#sleeping.splice(at, 1);
    if (this.#sleeping.length > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function poke(state: LoopState): void {
  state.generation++;
  state.wake?.();
}

/** The worker process's wakeup: one per process (every job of a worker shares it). */
export function workerWakeup(): Wakeup {
  return derived(Wakeup, () => new Wakeup());
}

/**
 * Called by the state doors (changePaymentState, changeInvoiceStatus, changeTargetState), which
 * also queue the webhooks: a worker job's step that changed a state wakes the worker's other jobs after it.
 * Outside a worker job's step (the web, a script), nothing.
 */
export function noteProgress(): void {
  workerWakeup().noteProgress();
}
