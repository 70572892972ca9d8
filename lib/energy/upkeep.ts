import type { ChainParameters } from '@/lib/chain/types';
import type { WorkerContext } from '@/lib/worker/context';
import { OPEN_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import { poolStatus, type PoolStatus } from './pool';

/**
 * What the energy job's rounds read from the node, kept between rounds while nothing could have
 * changed it (issue 37: the upkeep read the gas wallet's account, its resources, what it can lend
 * and the chain parameters every ENERGY_POLL_MS, four requests every 3 s, half of what an idle
 * deployment asked of its node provider).
 *
 * Only the upkeep reads through this: the published status (energy_status, a quote the web shows
 * and a payout's estimate counts on), the taking back of lent energy and the withdrawal of expired
 * unstaked TRX. Every decision that spends money reads the node itself, fresh: the source of a send
 * (lib/energy/engine.ts, energySourceFor: poolStatus and lendingNeed), a lending (lib/energy/pool.ts,
 * lend: lendingNeed inside the send's build), the energy and price a send is checked against before
 * broadcast (energyShort), a rental (lib/energy/rental.ts). So a kept read can make the status
 * published late, never a send burn TRX or count energy that is not there.
 *
 * Why a kept read of the pool is still what the chain holds:
 * - the pool's account (its stake, what it lent, what it is unstaking) changes only by a
 *   transaction from the gas wallet (stake, unstake, withdraw, delegate, undelegate), and its
 *   balance by one from or to it (gas sent, gas returned); every one of ours is a stored send, and
 *   it changes the pool only when it lands in a block: the pool is read again when one is seen in
 *   a block (the job that follows it records the block: lib/sends/steps.ts), when one seen in a
 *   block is seen out of it again (a reorganisation), and when one ends in a block other than the
 *   one it was seen in (it landed unseen). A send stored is in no block yet, and one that ends
 *   final in the block it was seen in, or dead in no block, changed nothing since: until
 *   2026-12-02 each of those read the pool too, and a lending or an activation every round until
 *   it was seen, about six reads (18 requests) for each USDT invoice (issue 37). A new row of
 *   anything else (a customer's payment, a forward from an invoice address) changes nothing of it:
 *   until 2026-12-01 every new row of the books read it again (three requests), a payment's and
 *   its forward's too (issue 37);
 * - its resources: the energy it used regenerates (linearly over 24 h), so a kept read shows less
 *   free energy than there is, never more (published late, on the safe side); the energy its lent
 *   stake carried comes back with an undelegate, ours, as above; what a send on lent energy used is
 *   the receiver's, not the pool's, until that undelegate;
 * - between a send's landing and its follow recording the block (a round of the job following it,
 *   about a block) the kept read shows the pool as before it: the published status is that much
 *   late, as it is for a lending stored just after a round published it. Before 2026-11-30 the pool
 *   was read every round while any send of the gas wallet was in flight or anything was lent, about
 *   40 rounds of four requests for each USDT forward (issue 37);
 * - while anything is lent, the accounts it lent to are looked at again (the delegation index, not
 *   the pool) when what keeps its receivers busy changes (lib/energy/reclaim.ts, busyAt: our sends
 *   in flight, open payments, active payouts): the taking back is due as soon as the receiver is
 *   done with it, and that is a change in the books. The pool is not read for it: a send ending or
 *   a payment closing changes nothing of the pool's account (until 2026-12-01 each such change read
 *   it, three requests, two or three times a USDT invoice; issue 37). A taking back that is due and
 *   waits only for time (its retry's backoff after an attempt that died unsent), nothing of it in
 *   flight, is no change in the books: the energy job forgets the kept read then (reclaimEnergy
 *   says so), so the next round reads and looks again;
 * - what nothing of ours does (a delegation or stake made by hand from the gas wallet, expired
 *   unstaked TRX becoming withdrawable after its 14 days, the network's totals by which stake
 *   converts to energy drifting as others stake) is seen at the next read, at most
 *   ENERGY_REFRESH_MS later.
 * The chain parameters (the energy price, the create-account fees) change only by a committee
 * proposal, applied at a maintenance period (every 6 h on mainnet): the upkeep reads them once
 * every CHAIN_PARAMETERS_MS for the published status; sends read them fresh (lib/chain/tron.ts,
 * getChainParameters, issue 22).
 */

/** How often the upkeep reads the chain parameters for the published status. */
export const CHAIN_PARAMETERS_MS = 3_600_000;

/** What the books say of our sends that could change the pool: compared between rounds. */
interface BooksMark {
  /** Our sends in flight from or to the gas wallet (signed or broadcast, not final), by id: the block each is known to be in, or null. */
  inFlight: Map<number, number | null>;
  /** What keeps the accounts the pool lent to busy (reclaim.ts, busyAt): our sends in flight, open payments, active payouts. */
  busy: string;
  /** The newest row of the books (its id; 0 with none): a send of ours newer than it that is not in flight at the next mark came and went in between. */
  newestId: number;
}

interface Kept<T> {
  value: T;
  at: number;
}

export interface PoolUpkeepReads {
  /**
   * The pool as the round may count on it: read from the node, or the last read while nothing
   * could have changed it. `lookForLent`: whether to look for what to take back, false when
   * neither the pool nor what keeps the accounts it lent to busy changed since the last look (it
   * would find what that one found).
   */
  pool(ctx: WorkerContext): Promise<{ status: PoolStatus; lookForLent: boolean }>;
  /** Forgets the kept read: the next round reads again (a round that failed after reading). */
  forget(): void;
  /** The chain parameters for the published status: read at most every CHAIN_PARAMETERS_MS. */
  chainParameters(ctx: WorkerContext): Promise<ChainParameters>;
}

/** The upkeep's reads of one worker's energy job (a singleton: one at a time), kept in memory between its rounds. */
export function poolUpkeepReads(now: () => number = Date.now): PoolUpkeepReads {
  let pool: (Kept<PoolStatus> & { mark: BooksMark }) | null = null;
  let params: Kept<ChainParameters> | null = null;
  return {
    async pool(ctx) {
      const mark = await booksMark(ctx);
      const t = now();
      if (pool && t - pool.at < ctx.settings.ENERGY_REFRESH_MS && !(await poolMoved(ctx, pool.mark, mark))) {
        const lookForLent = mark.busy !== pool.mark.busy;
        // The look is made with this round's mark: the next round's compares with what this one saw.
        pool.mark = mark;
        return { status: pool.value, lookForLent };
      }
      // Kept only once read: a read that throws leaves the next round to read again.
      pool = null;
      pool = { value: await poolStatus(ctx), at: t, mark };
      return { status: pool.value, lookForLent: true };
    },
    forget() {
      pool = null;
    },
    async chainParameters(ctx) {
      const t = now();
      if (params && t - params.at < CHAIN_PARAMETERS_MS) return params.value;
      params = { value: await ctx.chain.getChainParameters(), at: t };
      return params.value;
    },
  };
}

/**
 * Whether a send of ours may have changed the pool since the kept read (see above): one in flight
 * is seen in a block (or in another one) or out of the one it was seen in, or one ended in a block
 * other than the one it was seen in (it landed unseen). A send stored, or ended where it was seen
 * (final there, or dead in no block), changed nothing the kept read does not show.
 */
async function poolMoved(ctx: WorkerContext, kept: BooksMark, mark: BooksMark): Promise<boolean> {
  for (const [id, block] of mark.inFlight) if (block !== (kept.inFlight.get(id) ?? null)) return true;
  const ended = [...kept.inFlight.keys()].filter((id) => !mark.inFlight.has(id));
  if (ended.length > 0) {
    const rows = await ctx.prisma.transaction.findMany({ where: { id: { in: ended } }, select: { id: true, blockNumber: true, sendState: true } });
    // Ended, by its state: confirmed, or failed (dead in no block, or failed in a block, which used the pool's bandwidth there).
    if (rows.length !== ended.length || rows.some((r) => r.sendState === 'SIGNED' || r.sendState === 'BROADCAST' || r.blockNumber !== kept.inFlight.get(r.id))) return true;
  }
  // A send stored and ended in a block between the two marks, never in flight at one: on a devnet whose blocks are final a few
  // hundred ms after they are made, or behind a round held up (a busy machine, a slow node), a lending came and went unseen and
  // the kept read showed nothing lent until ENERGY_REFRESH_MS (energy-pool's dropped taking back, 2026-12-02). Mainnet's
  // finality (about a minute) makes it rare there, not impossible. The primary key's range of rows newer than the last mark
  // (a row whose id was taken before that mark and committed after it would be missed only if it also ended before the next
  // one: a send is stored in a statement of its own, long before its block can be final).
  const gas = ctx.gasWallet.address;
  const unseen = await ctx.prisma.transaction.findFirst({
    where: { id: { gt: kept.newestId, notIn: [...kept.inFlight.keys()] }, sendState: { in: ['CONFIRMED', 'FAILED'] }, blockNumber: { not: null }, OR: [{ fromAddress: gas }, { toAddress: gas }] },
    select: { id: true },
  });
  return unseen !== null;
}

/** Queries on indexes (the primary key, sendState, paymentState, an invoice's status): nothing of the node. */
async function booksMark(ctx: WorkerContext): Promise<BooksMark> {
  // The newest row first: a send stored after it and before the reads below is in flight there, or newer than it at the next mark.
  const newest = await ctx.prisma.transaction.findFirst({ select: { id: true }, orderBy: { id: 'desc' } });
  const [inFlight, open, payouts] = await Promise.all([
    ctx.prisma.transaction.findMany({ where: { sendState: { in: ['SIGNED', 'BROADCAST'] } }, select: { id: true, fromAddress: true, toAddress: true, blockNumber: true }, orderBy: { id: 'asc' } }),
    ctx.prisma.transaction.findMany({ where: { type: 'PAYMENT', paymentState: { in: [...OPEN_PAYMENT_STATES] } }, select: { id: true }, orderBy: { id: 'asc' } }),
    ctx.prisma.invoice.findMany({ where: { type: 'MULTIPLE_TRANSFER', status: 'ACTIVE' }, select: { id: true }, orderBy: { id: 'asc' } }),
  ]);
  const gas = ctx.gasWallet.address;
  return {
    inFlight: new Map(inFlight.filter((r) => r.fromAddress === gas || r.toAddress === gas).map((r) => [r.id, r.blockNumber])),
    busy: [inFlight.map((r) => r.id).join(','), open.map((r) => r.id).join(','), payouts.map((r) => r.id).join(',')].join(';'),
    newestId: newest?.id ?? 0,
  };
}
