import { processPayments } from '@/lib/payments/process';
import { IdleTurns } from '@/lib/worker/wake';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/**
 * Moves each open payment on: screening, holding, forwarding or refunding, booking (lib/payments/process.ts).
 * PAYMENT_WORKERS loops claim payments side by side (each claim is a lease, as between workers), so one
 * payment waiting on the node does not hold up the others' next step (issue 24).
 */
export function paymentsJobs({ ctx }: JobDeps): WorkerJob[] {
  // While no payment is open, one of them at a time looks for one.
  const idleTurns = new IdleTurns();
  return Array.from({ length: ctx.settings.PAYMENT_WORKERS }, (_, i) => ({ name: `payments-${i}`, idleTurns, step: async () => (await processPayments(ctx)) > 0 }));
}
