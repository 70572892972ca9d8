import { autostake, withdrawWhenExpired } from '@/lib/energy/operator';
import { reclaimEnergy } from '@/lib/energy/reclaim';
import { publishEnergyStatus } from '@/lib/energy/status';
import { foldNetworkCosts } from '@/lib/ledger/networkCost';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** The energy pool's upkeep (docs/energy.md): the devnet's first stake, operators' stakes followed, lent energy taken back, expired unstaked TRX withdrawn, what it can pay for published, and what the network cost each invoice folded in. */
export function energyJob({ ctx }: JobDeps): WorkerJob {
  return {
    name: 'energy',
    // Each part reads the pool and then acts on it (stake, take back, withdraw, publish): two
    // workers doing it at once would both stake or both withdraw.
    singleton: true,
    // Each round reads the pool from the node several times: every few seconds (ENERGY_POLL_MS) is
    // fresh enough for the published status (believed for two minutes) and for taking energy back,
    // and spares the node (a provider such as TronGrid limits requests per second).
    idleMs: ctx.settings.ENERGY_POLL_MS,
    step: async () => {
      // What the network cost each invoice, folded in from the ledger (lib/ledger/networkCost.ts): first, as it needs no node.
      await foldNetworkCosts(ctx.prisma);
      await autostake(ctx);
      await reclaimEnergy(ctx);
      await withdrawWhenExpired(ctx);
      await publishEnergyStatus(ctx);
      return false;
    },
  };
}
