import { processPayouts } from '@/lib/payouts/run';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Pays the targets of topped-up mass payouts (lib/payouts/run.ts, docs/payouts.md). */
export function payoutsJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'payouts', step: async () => (await processPayouts(ctx)) > 0 };
}
