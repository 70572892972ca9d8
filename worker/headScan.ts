import { scanHead } from '@/lib/payments/headScan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { workerWakeup } from '@/lib/worker/wake';

/**
 * Records payments from the head of the chain, before they are final, so they are forwarded at once
 * (issue 24; lib/payments/headScan.ts). A singleton, as the scanner of solidified blocks: every worker
 * would read the same blocks.
 */
export function headScanJob({ ctx }: JobDeps): WorkerJob {
  return {
    name: 'head-scan',
    singleton: true,
    idleMs: ctx.settings.HEAD_SCAN_POLL_MS,
    step: async () => {
      const { more, recorded } = await scanHead(ctx);
      // A block read is not work for the others; a payment recorded (or moved by a reorganisation) is.
      if (recorded > 0) workerWakeup().wake();
      // Again at once only while behind (lib/payments/scan.ts, ScanResult).
      return more;
    },
  };
}
