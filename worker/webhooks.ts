import { closeInterruptedDeliveries, deliverNext } from '@/lib/webhooks/deliver';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Senders that drain the webhook outbox side by side (one slow receiver does not hold up the rest). */
const SENDERS = 4;

export function webhookJobs({ ctx }: JobDeps): WorkerJob[] {
  const delivery = {
    timeoutMs: ctx.settings.WEBHOOK_TIMEOUT_MS,
    allowPrivate: ctx.settings.WEBHOOK_ALLOW_PRIVATE,
    retry: { baseMs: ctx.settings.WEBHOOK_RETRY_BASE_MS, maxMs: ctx.settings.WEBHOOK_RETRY_MAX_MS, windowMs: ctx.settings.WEBHOOK_RETRY_WINDOW_HOURS * 3_600_000 },
  };
  const senders = Array.from({ length: SENDERS }, (_, i): WorkerJob => ({ name: `webhooks-${i}`, step: () => deliverNext(ctx.prisma, delivery) }));
  // Deliveries cut off by a crash: sent again if their request never began, closed as failed if it had.
  const sweep: WorkerJob = {
    name: 'webhook-sweep',
    async step() {
      const { requeued, closed } = await closeInterruptedDeliveries(ctx.prisma, ctx.settings.WEBHOOK_STALE_SECONDS);
      return requeued + closed > 0;
    },
  };
  return [...senders, sweep];
}
