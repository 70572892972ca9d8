import type { WebhookDelivery } from '@/lib/generated/prisma/client';
import { notifyFailingEndpoint } from '@/lib/notify/webhookFailing';
import { closeInterruptedDeliveries } from '@/lib/webhooks/deliver';
import { webhookSenders } from '@/lib/webhooks/senders';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';
import { workerWakeup } from '@/lib/worker/wake';

export function webhookJobs({ ctx }: JobDeps): WorkerJob[] {
  const delivery = {
    timeoutMs: ctx.settings.WEBHOOK_TIMEOUT_MS,
    allowPrivate: ctx.settings.WEBHOOK_ALLOW_PRIVATE,
    retry: { baseMs: ctx.settings.WEBHOOK_RETRY_BASE_MS, maxMs: ctx.settings.WEBHOOK_RETRY_MAX_MS, windowMs: ctx.settings.WEBHOOK_RETRY_WINDOW_HOURS * 3_600_000 },
    // A retry falls due while the senders may sleep: they are woken for it.
    wakeAfter: (ms: number) => workerWakeup().after(ms),
    // An endpoint that keeps failing is e-mailed about where SMTP is configured (issue 38).
    onFailed: (d: WebhookDelivery) => notifyFailingEndpoint(ctx.prisma, d),
  };
  // Shared senders and senders kept for fast receivers (lib/webhooks/senders.ts, issue 27, finding 4).
  const senders = webhookSenders(ctx.prisma, delivery);
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
