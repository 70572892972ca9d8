import { processPayments } from '@/lib/payments/process';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Moves each open payment on: screening, holding, forwarding or refunding, booking (lib/payments/process.ts). */
export function paymentsJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'payments', step: async () => (await processPayments(ctx)) > 0 };
}
