import { scanHead } from '@/lib/payments/headScan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { pacedScan } from './pacedScan';

/**
 * Records payments from the head of the chain, before they are final, so they are forwarded at once
 * (issue 24; lib/payments/headScan.ts). A singleton, as the scanner of solidified blocks: every worker
 * would read the same blocks.
 */
export function headScanJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'head-scan', singleton: true, ...pacedScan(ctx.settings.HEAD_SCAN_POLL_MS, () => scanHead(ctx)) };
}
