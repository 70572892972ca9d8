import { sendNextMail } from '@/lib/notify/outbox';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Sends the merchants' queued e-mails (a payment held for them) through SMTP_URL (lib/notify/outbox.ts). */
export function mailJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'mail', step: () => sendNextMail(ctx.prisma) };
}
