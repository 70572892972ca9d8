import { BlockPace, LONGEST_WAIT_MS } from '@/lib/chain/pace';
import { scanHead } from '@/lib/payments/headScan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { workerWakeup } from '@/lib/worker/wake';

/**
 * Records payments from the head of the chain, before they are final, so they are forwarded at once
 * (issue 24; lib/payments/headScan.ts). A singleton, as the scanner of solidified blocks: every worker
 * would read the same blocks.
 */
export function headScanJob({ ctx }: JobDeps): WorkerJob {
  const pollMs = ctx.settings.HEAD_SCAN_POLL_MS;
  // The heads read, by which the next read waits for the next block to be due (lib/chain/pace.ts, issue 37).
  const pace = new BlockPace();
  return {
    name: 'head-scan',
    singleton: true,
    // The longest wait; each step sets the next read's time itself (`after`, lib/worker/wake.ts).
    idleMs: Math.max(pollMs, LONGEST_WAIT_MS),
    step: async () => {
      // When the head was read, near enough: the step reads it first (a lag learnt a little short asks a little early).
      const readAt = Date.now();
      const { more, recorded, head } = await scanHead(ctx);
      if (head) pace.saw(head, readAt);
      // A block read is not work for the others; a payment recorded (or moved by a reorganisation) is.
      if (recorded > 0) workerWakeup().wake();
      // Again at once only while behind (lib/payments/scan.ts, ScanResult); else once the next block is due.
      if (!more) workerWakeup().after(pace.untilNextMs(Date.now(), pollMs));
      return more;
    },
  };
}
