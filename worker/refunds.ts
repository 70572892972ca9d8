import { tellRefundOutcomes } from '@/lib/refunds/events';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Tells each refund's outcome once, as its payout ends: the opt-in refund.sent and refund.failed webhooks (lib/refunds/events.ts, docs/refunds.md). */
export function refundsJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'refund-outcomes', step: async () => (await tellRefundOutcomes(ctx.prisma)) > 0 };
}
