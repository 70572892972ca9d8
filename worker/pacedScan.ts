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
 * (the scanner of solidified blocks, worker/scan.ts): `blocks` a read then covers, and the check,
 * a database read, of whether something waits (lib/payments/scan.ts, `finalityAwaited`).
 */
export interface IdleReads {
  blocks: number;
  awaited: () => Promise<boolean>;
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
 * With `idle`: after a read that found nothing waiting, the next is planned once `idle.blocks`
 * blocks are due, not one; until then a step once a block (every `pollMs` on blocks faster than it),
 * and at any wake, asks the database whether something waits now, and reads at once if so, then
 * once a block again.
 */
export function pacedScan(pollMs: number, read: () => Promise<ScanStep>, marginShare?: number, idle?: IdleReads): Pick<WorkerJob, 'idleMs' | 'step'> {
  // The heads read, by which the next read waits for the next block to be due (and its margin: lib/chain/pace.ts).
  const pace = new BlockPace(marginShare);
  // When (our clock) the next read is planned, and whether it was planned `idle.blocks` on because nothing waited.
  let plannedAt = 0;
  let idlePlan = false;
  // While a read is planned `idle.blocks` on, the database is asked once a block whether something waits:
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
        if (!idlePlan) {
          workerWakeup().after(plannedAt - Date.now());
          return false;
        }
        if (!(await idle!.awaited())) {
          // Nothing waits yet: the planned read stands; ask again a block on.
          workerWakeup().after(Math.min(plannedAt - Date.now(), checkMs()));
          return false;
        }
        // Read now, sooner than planned: something came to wait for the blocks the idle plan puts off.
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
        idlePlan = false;
        return true;
      }
      // Else once the next block is due: `idle.blocks` on while nothing waits for them.
      idlePlan = idle !== undefined && idle.blocks > 1 && !(await idle.awaited());
      const wait = pace.untilNextMs(Date.now(), pollMs, idlePlan ? idle!.blocks : 1);
      plannedAt = Date.now() + wait;
      workerWakeup().after(idlePlan ? Math.min(wait, checkMs()) : wait);
      return false;
    },
  };
}
