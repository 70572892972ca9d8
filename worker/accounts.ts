import { prepareAccounts } from '@/lib/merchants/accounts';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** Account xpubs for sign-ups (and merchants from before migration 0041), kept ahead; the web derives addresses from them. */
export function accountsJob({ ctx, mnemonic }: JobDeps): WorkerJob {
  return {
    name: 'accounts',
    idleMs: 60_000,
    async step() {
      await prepareAccounts(ctx.prisma, mnemonic);
      return false;
    },
  };
}
