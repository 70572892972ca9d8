import { BlockPace, LONGEST_WAIT_MS } from '@/lib/chain/pace';
import type { Head } from '@/lib/chain/types';
import type { ScanResult } from '@/lib/payments/scan';
import type { WorkerJob } from '@/lib/worker/job';
import { workerWakeup } from '@/lib/worker/wake';

/** How much longer than the longest wait for a block a scanner's idle sleep is. */
const SLEEP_BEYOND_WAIT_MS = 100;

/**
 * What one read of a block scanner did (lib/payments/scan.ts, headScan.ts): `more`, read again at
 * once; `recorded`, work for the other jobs; and the head the read asked the node for (null when it
 * asked for none).
 */
export type ScanStep = Pick<ScanResult, 'more' | 'recorded'> & { head: Head | null };

/**
 * A scanner that may read less often than once a block while nothing waits for the blocks it reads
 * (the scanner of solidified blocks, worker/scan.ts): at most `blocks` a read then covers, and the
 * check, a database read, of the first block something waits for (lib/payments/scan.ts,
 * `finalityAwaited`: null, nothing; 0, the next block, whichever it is).
 */
export interface IdleReads {
  blocks: number;
  awaited: () => Promise<number | null>;
}

/**
 * The step of a block scanner's job and how long it sleeps: it asks the node again once the next
 * block is due (lib/chain/pace.ts, issue 37), and every `pollMs` while it is late, however long the
 * other jobs sleep when idle. The scanner of solidified blocks and the head scanner are both this,
 * with their own `read`; each job says its name and that it is a singleton.
 *
 * A wake before the planned read (every job is woken when any makes progress) does not bring it
 * sooner: no block is due sooner for it.
 *
 * With `idle`: after a read, the next is planned once the first block something waits for is due,
 * `idle.blocks` blocks on at most (and when nothing waits), not one; until then a step once a block
 * (every `pollMs` on blocks faster than it), and at any wake, asks the database what waits now: a
 * read planned later than a block now awaited is brought forward, to at once when that is the next
 * block, then planned as after a read.
 */
export function pacedScan(pollMs: number, read: () => Promise<ScanStep>, marginShare?: number, idle?: IdleReads): Pick<WorkerJob, 'idleMs' | 'step'> {
  // The heads read, by which the next read waits for the next block to be due (and its margin: lib/chain/pace.ts).
  const pace = new BlockPace(marginShare);
  // When (our clock) the next read is planned.
  let plannedAt = 0;
  // How many blocks past the newest head seen the planned read is for (1: the next, once a block; more: `idle`).
  let plannedBlocks = 1;
  // The blocks to plan the next read for, from the first block something waits for (`idle.awaited`): at
  // least the next, at most `idle.blocks`, which is also what nothing waiting plans.
  const blocksUntil = (from: number | null) => {
    const last = pace.lastNumber;
    if (from === null) return idle!.blocks;
    if (last === null) return 1;
    return Math.max(1, Math.min(idle!.blocks, from - last));
  };
  // While a read is planned more than a block on, the database is asked once a block what waits:
  // as often as the read would be made without `idle`, so a wait is noticed within the block it began in.
  const checkMs = () => Math.max(pollMs, pace.intervalMs ?? pollMs);
  return {
    // Each step sets the next read's time itself (`after`, lib/worker/wake.ts); the idle sleep is
    // longer than any wait it sets for one block (at most LONGEST_WAIT_MS, rounded up to the wakeup's
    // 10 ms), so the wait's timer starts each read. When both could end together, the sleep ended
    // first at times, and the timer's wake, coming during the read the sleep had started, started
    // another at once: a second read, of nothing (issue 37). A standby worker asks for the lease
    // this often.
    idleMs: Math.max(pollMs, LONGEST_WAIT_MS) + SLEEP_BEYOND_WAIT_MS,
    async step() {
      if (Date.now() < plannedAt) {
        // Woken before the next block is due (a door changed a state, a scanner recorded a payment: every job is
        // woken): no block comes sooner for it, so the planned read stands. Read at each wake, the scanners asked
        // the node four to six times a block while a paid invoice was worked on (issue 37).
        if (plannedBlocks <= 1) {
          workerWakeup().after(plannedAt - Date.now());
          return false;
        }
        const blocks = blocksUntil(await idle!.awaited());
        if (blocks >= plannedBlocks) {
          // Nothing waits sooner than the planned read: it stands; ask again a block on.
          workerWakeup().after(Math.min(plannedAt - Date.now(), checkMs()));
          return false;
        }
        if (blocks > 1) {
          // Something came to wait for a block before the one planned for, not the next: the read is brought forward to it.
          plan(blocks);
          return false;
        }
        // Read now, sooner than planned: something came to wait for the next blocks, which the plan puts off.
        pace.unplanned();
      }
      // When the head was read, near enough: the read asks for it first (a lag learnt a little short asks a little early).
      const readAt = Date.now();
      const { more, recorded, head } = await read();
      if (head) pace.saw(head, readAt);
      // A block read is not work for the others; a payment or top-up recorded is (lib/worker/wake.ts).
      if (recorded > 0) workerWakeup().wake();
      if (more) {
        // Again at once only while behind (lib/payments/scan.ts, ScanResult).
        plannedAt = 0;
        plannedBlocks = 1;
        return true;
      }
      // Else once the next block is due; with `idle`, once the first block something waits for is, `idle.blocks` on at most.
      plan(idle !== undefined && idle.blocks > 1 ? blocksUntil(await idle.awaited()) : 1);
      return false;
    },
  };

  /** Plans the next read for when the head `blocks` past the newest seen is due; checks what waits once a block meanwhile. */
  function plan(blocks: number): void {
    plannedBlocks = blocks;
    const wait = pace.untilNextMs(Date.now(), pollMs, blocks);
    plannedAt = Date.now() + wait;
    workerWakeup().after(blocks > 1 ? Math.min(wait, checkMs()) : wait);
  }
}
