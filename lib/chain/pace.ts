import type { Head } from './types';

/**
 * When the next block is due, for a scanner that reads the head or the solidified head (issue 37:
 * the head scanner asked the node for the head every 500 ms, six times a block on mainnet's 3 s
 * blocks, and the scanner of solidified blocks for the solidified head three times, though a new
 * one can only come once a block). A pure value: the scanner tells it each head it read; it
 * answers how long to wait before asking again.
 *
 * Both are learnt from the heads seen, not configured:
 * - the interval: the shortest of the last few intervals between two heads, each the time between
 *   their timestamps over the blocks between them, so a missed slot (a 6 s gap on mainnet) does not
 *   lengthen it, and the devnet's 50 ms blocks in the tests give an interval below the poll, which
 *   then keeps its own pace;
 * - the lag: how long after its timestamp a head is first seen, the shortest of the last few. About
 *   nothing for the head; for the solidified head, the time its block takes to become final (57 s
 *   on mainnet), as a block's timestamp is when it was made. Our clock's difference from the
 *   chain's is in it too, so a clock set wrong does not move the reads.
 */
/** No wait is longer than this, whatever the intervals seen: mainnet's block interval. */
export const LONGEST_WAIT_MS = 3_000;
const INTERVALS_KEPT = 8;
/**
 * A read waited for is made a share of the interval after the next block is due (the head
 * scanner's: a thirtieth, 100 ms on mainnet's 3 s blocks): a block a little later than the
 * earliest one seen is then found by that read, not by a second one a poll later (issue 37: one
 * read in twenty to ten found nothing on the devnet's mainnet timing, its blocks a few ms late or
 * early; the solidified head, seen a block 19 blocks on, varies more).
 */
export const HEAD_MARGIN_SHARE = 30;

export class BlockPace {
  #last: Head | null = null;
  readonly #intervals: number[] = [];
  readonly #lags: number[] = [];
  /** The margin the wait last told added to the due time (0: it told the poll, not a wait for a block). */
  #marginMs = 0;
  /**
   * The head the read the last wait told is made for, when it is made once that head is due (null: sooner, cut
   * short by the caps, or no head learnt): a newer head than the last, but older than this, proves the lags kept
   * short (`saw`).
   */
  #dueNumber: number | null = null;

  /** `marginShare`: the read waited for is made interval / marginShare after the block is due. */
  constructor(private readonly marginShare = HEAD_MARGIN_SHARE) {}

  /** A head read from the node at `now` (our clock, ms): when the read was asked for. */
  saw(head: Head, now: number): void {
    const last = this.#last;
    // The read waited for the margin beyond the due time: seen by then, the head counts as seen that much sooner,
    // so the lag learnt is what it would be without the margin, and the reads do not drift later block after block.
    const margin = this.#marginMs;
    this.#marginMs = 0;
    const due = this.#dueNumber;
    this.#dueNumber = null;
    // Genesis, the solidified head of a chain younger than its finality depth (the devnet a default run or a bench
    // starts): stamped when the chain began, not made a finality period before it was seen, so its lag is seconds
    // where a final block's is a minute. Learnt, that lag stayed the shortest for the next eight heads, and the
    // scanner of solidified blocks, thinking each block late, read every poll instead of every ten blocks (issue 37).
    if (head.number === 0) return;
    if (last && head.number <= last.number) return; // the same head, or an older one from a lagging node: nothing new
    if (last) keep(this.#intervals, (head.timestamp - last.timestamp) / (head.number - last.number));
    // Read once the head it waited for was due, the read found an older one: blocks now turn final (or come) later
    // after their stamps than the lags kept say, and each would plan the next read early again, finding a part of the
    // blocks. A devnet stalled a few seconds on a loaded machine made the scanner of solidified blocks, final 200
    // blocks deep and waiting 50 blocks a read, read every half second for the eight reads the shorter lags were
    // kept (a fresh-clone run, 2026-12-02). Seen then, the head's lag is its true one within a block (the next was
    // not final yet): it is the one kept. Not the head scanner's case: it waits for one block, so a newer head is it.
    if (due !== null && head.number < due) this.#lags.length = 0;
    keep(this.#lags, now - margin - head.timestamp);
    this.#last = head;
  }

  /** The number of the newest head seen, or null before one was. */
  get lastNumber(): number | null {
    return this.#last?.number ?? null;
  }

  /** The interval learnt (ms), or null before two heads were seen. */
  get intervalMs(): number | null {
    return this.#intervals.length === 0 ? null : Math.min(...this.#intervals);
  }

  /**
   * How long to wait before reading the head again at `now`: until the head `blocks` after the newest
   * one seen is due (its timestamp `blocks` intervals on, plus the lag) and a margin (`marginShare`),
   * when that is further off than `pollMs`; else `pollMs` (it is due or late: ask at the usual pace
   * until it comes). Never longer than `blocks` intervals or `blocks` x LONGEST_WAIT_MS. `blocks`
   * above 1: the scanner of solidified blocks while nothing waits for finality (worker/scan.ts).
   */
  untilNextMs(now: number, pollMs: number, blocks = 1): number {
    this.#marginMs = 0;
    this.#dueNumber = null;
    const interval = this.intervalMs;
    if (this.#last === null || interval === null || interval * blocks <= pollMs) return pollMs;
    const margin = interval / this.marginShare;
    const wait = this.#last.timestamp + Math.min(...this.#lags) + interval * blocks + margin - now;
    const due = this.#last.number + blocks;
    // Due, or late: the read a poll on is made past its due time.
    if (wait <= pollMs) {
      this.#dueNumber = due;
      return pollMs;
    }
    const until = Math.min(wait, interval * blocks, LONGEST_WAIT_MS * blocks);
    // Only a read made at the due time and its margin is known to be that late; one cut short by the caps is not.
    if (until === wait) {
      this.#marginMs = margin;
      this.#dueNumber = due;
    }
    return until;
  }

  /**
   * The next read is not the one the last wait told: it is made sooner (something came to wait for
   * the blocks, worker/pacedScan.ts), so what it sees is not discounted by that wait's margin (else
   * the lag learnt would be short by it, and the reads drift earlier).
   */
  unplanned(): void {
    this.#marginMs = 0;
    this.#dueNumber = null;
  }
}

/** Appends `value`, keeping the last INTERVALS_KEPT. */
function keep(values: number[], value: number): void {
  values.push(value);
  if (values.length > INTERVALS_KEPT) values.shift();
}
