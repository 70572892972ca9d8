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
 * The step of a block scanner's job and how long it sleeps: it asks the node again once the next
 * block is due (lib/chain/pace.ts, issue 37), and every `pollMs` while it is late, however long the
 * other jobs sleep when idle. The scanner of solidified blocks and the head scanner are both this,
 * with their own `read`; each job says its name and that it is a singleton.
 */
export function pacedScan(pollMs: number, read: () => Promise<ScanStep>, marginShare?: number): Pick<WorkerJob, 'idleMs' | 'step'> {
  // The heads read, by which the next read waits for the next block to be due (and its margin: lib/chain/pace.ts).
  const pace = new BlockPace(marginShare);
  return {
    // Each step sets the next read's time itself (`after`, lib/worker/wake.ts); the idle sleep is
    // longer than any wait it sets (at most LONGEST_WAIT_MS, rounded up to the wakeup's 10 ms), so
    // the wait's timer starts each read. When both could end together, the sleep ended first at
    // times, and the timer's wake, coming during the read the sleep had started, started another at
    // once: a second read, of nothing (issue 37). A standby worker asks for the lease this often.
    idleMs: Math.max(pollMs, LONGEST_WAIT_MS) + SLEEP_BEYOND_WAIT_MS,
    async step() {
      // When the head was read, near enough: the read asks for it first (a lag learnt a little short asks a little early).
      const readAt = Date.now();
      const { more, recorded, head } = await read();
      if (head) pace.saw(head, readAt);
      // A block read is not work for the others; a payment or top-up recorded is (lib/worker/wake.ts).
      if (recorded > 0) workerWakeup().wake();
      // Again at once only while behind (lib/payments/scan.ts, ScanResult); else once the next block is due.
      if (!more) workerWakeup().after(pace.untilNextMs(Date.now(), pollMs));
      return more;
    },
  };
}
