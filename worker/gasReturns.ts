import { processGasReturns } from '@/lib/payments/gasReturn';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Sends a closed single-use address's unburned gas back to the gas wallet (lib/payments/gasReturn.ts). */
export function gasReturnsJob({ ctx }: JobDeps): WorkerJob {
  return { name: 'gas-returns', step: async () => (await processGasReturns(ctx)) > 0 };
}
