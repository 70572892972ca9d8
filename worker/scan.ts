import { scanHeartbeat } from '@/lib/operations/heartbeat';
import { scanNextBlocks } from '@/lib/payments/scan';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Records payments and top-ups from confirmed blocks; beats the heartbeat /healthz reads after each completed step (on the worker running it). */
export function scanJob({ ctx }: JobDeps): WorkerJob {
  const beat = scanHeartbeat(ctx.prisma, ctx.owner);
  return {
    name: 'scan',
    // One worker reads the blocks; with several, each would read every block and all but one throw theirs away.
    singleton: true,
    async step() {
      const scanned = await scanNextBlocks(ctx);
      await beat(); // read by /healthz: this worker is scanning
      return scanned > 0;
    },
  };
}
