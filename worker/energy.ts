import { autostake, withdrawWhenExpired } from '@/lib/energy/operator';
import { poolStatus } from '@/lib/energy/pool';
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
      // The pool as the chain has it, read once for the round (issues 37 and 41: the parts each read
      // it, six requests a round, now four while nothing is lent): what the round does lands in a
      // later block, so a read after it would show the same.
      const pool = await poolStatus(ctx);
      await reclaimEnergy(ctx, pool.stake);
      await withdrawWhenExpired(ctx, pool.stake);
      await publishEnergyStatus(ctx, pool);
      return false;
    },
  };
}
