import { scanHead } from '@/lib/payments/headScan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Records payments from the head of the chain, before they are final, so they are forwarded at once (issue 24; lib/payments/headScan.ts). */
export function headScanJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'head-scan', idleMs: ctx.settings.HEAD_SCAN_POLL_MS, step: async () => (await scanHead(ctx)) > 0 };
}
