import { autostake, withdrawWhenExpired } from '@/lib/energy/operator';
import { reclaimEnergy } from '@/lib/energy/reclaim';
import { publishEnergyStatus } from '@/lib/energy/status';
import { poolUpkeepReads } from '@/lib/energy/upkeep';
import { foldNetworkCosts } from '@/lib/ledger/networkCost';
import type { JobDeps, WorkerJob } from '@/lib/worker/job';

/** The energy pool's upkeep (docs/energy.md): the devnet's first stake, operators' stakes followed, lent energy taken back, expired unstaked TRX withdrawn, what it can pay for published, and what the network cost each invoice folded in. */
export function energyJob({ ctx }: JobDeps): WorkerJob {
  // What the rounds read of the pool, kept while nothing could have changed it (lib/energy/upkeep.ts, issue 37).
  const reads = poolUpkeepReads();
  return {
    name: 'energy',
    // Each part reads the pool and then acts on it (stake, take back, withdraw, publish): two
    // workers doing it at once would both stake or both withdraw.
    singleton: true,
    // Every few seconds (ENERGY_POLL_MS) is fresh enough for the published status (believed for two
    // minutes) and for taking energy back; a round asks the node only when something could have
    // changed what it read last (lib/energy/upkeep.ts), sparing a provider's quota (TronGrid).
    idleMs: ctx.settings.ENERGY_POLL_MS,
    step: async () => {
      // What the network cost each invoice, folded in from the ledger (lib/ledger/networkCost.ts): first, as it needs no node.
      await foldNetworkCosts(ctx.prisma);
      await autostake(ctx);
      // The pool as the chain has it, read at most once for the round (issues 37 and 41: the parts
      // each read it, six requests a round): what the round does lands in a later block, so a read
      // after it would show the same. Reused from an earlier round while nothing of ours could have
      // changed it and nothing is lent (lib/energy/upkeep.ts says why that is safe): an idle round
      // asks the node nothing.
      const { status: pool, lookForLent } = await reads.pool(ctx);
      try {
        // What to take back is looked for when the pool or its receivers' business changed: else it would find what the last look found.
        // A taking back that waits only for time (its retry's backoff) is looked for again next round: nothing in the books says when.
        const lookAgain = await reclaimEnergy(ctx, pool.stake, lookForLent);
        await withdrawWhenExpired(ctx, pool.stake);
        await publishEnergyStatus(ctx, pool, await reads.chainParameters(ctx));
        if (lookAgain) reads.forget();
      } catch (err) {
        // Read again next round, so that what this one did not finish is looked for again.
        reads.forget();
        throw err;
      }
      return false;
    },
  };
}
