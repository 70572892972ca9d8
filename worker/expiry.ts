import { expireInvoices } from '@/lib/payments/expiry';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** SINGLE invoices past expired_at (by chain time) become TIMEOUT or UNDERPAID through the one status door. */
export function expiryJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'expiry', step: async () => (await expireInvoices(ctx.prisma)) > 0 };
}
