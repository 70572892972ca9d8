import { BlockPace, LONGEST_WAIT_MS } from '@/lib/chain/pace';
import { scanHeartbeat } from '@/lib/operations/heartbeat';
import { scanNextBlocks, type CursorAt } from '@/lib/payments/scan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { workerWakeup } from '@/lib/worker/wake';

/** Records payments and top-ups from confirmed blocks; beats the heartbeat /healthz reads after each completed step (on the worker running it). */
export function scanJob({ ctx }: JobDeps): WorkerJob {
  const beat = scanHeartbeat(ctx.prisma, ctx.owner);
  // Where this worker's last step left the cursor (lib/payments/scan.ts): a step reads it only when unknown.
  let cursor: CursorAt | null = null;
  const pollMs = ctx.settings.SCAN_POLL_MS ?? ctx.settings.WORKER_POLL_MS;
  // The solidified heads read, by which the next read waits for the next block to be due (lib/chain/pace.ts, issue 37).
  const pace = new BlockPace();
  return {
    name: 'scan',
    // One worker reads the blocks; with several, each would read every block and all but one throw theirs away.
    singleton: true,
    // The node is read for a new block once it is due, then every SCAN_POLL_MS until it comes, however
    // long the other jobs sleep when idle; this is the longest wait (each step sets its next read's time).
    idleMs: Math.max(pollMs, LONGEST_WAIT_MS),
    async step() {
      // Unknown again until this step ends: a step that throws leaves it unread.
      const known = cursor;
      cursor = null;
      // When the head was read, near enough: the step reads it first (a lag learnt a little short asks a little early).
      const readAt = Date.now();
      const result = await scanNextBlocks(ctx, known ?? undefined);
      cursor = result.cursor;
      pace.saw(result.head, readAt);
      const { more, recorded } = result;
      await beat(); // read by /healthz: this worker is scanning
      // A block read is not work for the others; a payment or top-up recorded is (lib/worker/wake.ts).
      if (recorded > 0) workerWakeup().wake();
      // Again at once only while behind (lib/payments/scan.ts, ScanResult); else once the next block is due.
      if (!more) workerWakeup().after(pace.untilNextMs(Date.now(), pollMs));
      return more;
    },
  };
}
