import type { Resource, Stake } from '@/lib/chain/types';
import { ensureSend, followSend } from '@/lib/sends/steps';
import { OPEN_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import type { WorkerContext } from '@/lib/worker/context';
import { storePoolOperation } from './operator';

/**
 * Whether something at `receiver` may still need what the pool lent it, or null: a send of ours
 * in flight from or to the address (stored and not final: it may go out or be executing), a
 * payment at it still open (it may be about to send), or a payout still paying (it may send
 * another wave). Asked before a taking back is built, and again before it is broadcast: a send
 * is stored before its own check (lib/energy/engine.ts, energyShort, which waits while a taking
 * back is in flight), so of a send and a taking back racing, at least one sees the other and waits.
 */
async function busyAt(ctx: WorkerContext, receiver: string): Promise<string | null> {
  const busy = await ctx.prisma.transaction.findFirst({
    where: {
      OR: [
        { sendState: { in: ['SIGNED', 'BROADCAST'] }, OR: [{ fromAddress: receiver }, { toAddress: receiver, sendPurpose: { not: 'ENERGY_RECLAIM' } }] },
        { type: 'PAYMENT', toAddress: receiver, paymentState: { in: [...OPEN_PAYMENT_STATES] } },
        { type: 'TOPUP', toAddress: receiver, invoice: { type: 'MULTIPLE_TRANSFER', status: 'ACTIVE' } },
      ],
    },
    select: { id: true, type: true, sendPurpose: true },
  });
  return busy ? `the address is in use (transaction ${busy.id}, ${busy.sendPurpose ?? busy.type})` : null;
}

/**
 * Takes back what the pool lent (docs/energy.md, "Taking energy back"): for every account the
 * pool has delegated to (read from the chain, so a delegation a crashed worker made and never
 * recorded as used is found too), once nothing there needs it (busyAt). The UNDELEGATE is a
 * stored send anchored on the payment of the latest lending to the address, one per lending
 * (index = that DELEGATE row's id), so a crash never sends it twice. A delegation no lending of
 * ours explains (the books lost it, or someone lent from the gas wallet by hand) is taken back
 * too, as a pool operation of its own. The pool's own operations in flight (an operator's stake)
 * are followed here too. `stake`: the pool's, as the energy job's round read it; with nothing
 * delegated there is no one to ask the delegation index about (issues 37 and 41: one request a
 * round spared while nothing is lent). `lookForLent` false: nothing of ours changed the pool nor
 * what keeps its receivers busy since the last look (lib/energy/upkeep.ts), so a look for what to
 * take back would find what the last one did; it is not made.
 *
 * Answers whether a taking back is due and was not made for a reason only time ends, with nothing
 * of it in flight: its last attempt died unsent and the next waits out its backoff
 * (SEND_RETRY_BASE_MS), or another send's block it must reference is not seen yet. The books do
 * not change when that wait is over, so the caller must look again next round, not keep the read
 * (before 2026-12-01 a taking back the network dropped waited for ENERGY_REFRESH_MS, 10 minutes).
 */
export async function reclaimEnergy(ctx: WorkerContext, stake: Stake, lookForLent = true): Promise<boolean> {
  const pool = ctx.gasWallet.address;
  // Followed here to their end: a taking back is out of the chain's delegation index as soon as it is in a block.
  for (const row of await ctx.prisma.transaction.findMany({ where: { sendPurpose: { in: ['POOL_STAKE', 'ENERGY_RECLAIM'] }, sendState: { in: ['SIGNED', 'BROADCAST'] } } })) {
    await followSend(ctx, row, row.sendPurpose === 'ENERGY_RECLAIM' ? () => busyAt(ctx, row.toAddress) : undefined);
  }
  if (!lookForLent || stake.delegatedSun.ENERGY + stake.delegatedSun.BANDWIDTH === 0n) return false;
  let lookAgain = false;
  for (const receiver of await ctx.chain.getDelegationReceivers(pool)) {
    if (await busyAt(ctx, receiver)) continue;
    const lent = await ctx.chain.getDelegatedSun(pool, receiver);
    for (const resource of (['ENERGY', 'BANDWIDTH'] as const).filter((r) => lent[r] > 0n)) {
      const lending = await ctx.prisma.transaction.findFirst({ where: { type: 'DELEGATE', toAddress: receiver, resource, sendState: 'CONFIRMED' }, orderBy: { id: 'desc' } });
      const anchor = lending?.sourceId ? await ctx.prisma.transaction.findUnique({ where: { id: lending.sourceId } }) : null;
      // Its taking back done and stake still lent: delegated after that taking back was built, by no lending of ours (every
      // lending is stored before it is broadcast, so a newer one would be the latest). Keyed by that lending, it would never be
      // taken back until a newer lending came (issue 35, case 3): it is unexplained.
      const done = lending && (await ctx.prisma.transaction.findFirst({ where: { sendPurpose: 'ENERGY_RECLAIM', sendIndex: lending.id, sendState: 'CONFIRMED' }, select: { id: true } }));
      if (!lending || !anchor || done) {
        await takeBackUnexplained(ctx, receiver, resource, lent[resource]);
        continue;
      }
      // One taking back per lending (index = its row); one pool operation in flight per address and resource (migration 0109).
      const outcome = await ensureSend(
        ctx,
        anchor,
        { purpose: 'ENERGY_RECLAIM', index: lending.id },
        // refBlock: the newest block not final of what the taking back relies on (bindingBlock): its payment's block while
        // the books do not show it final, its own sends'. Built on the head instead, the binding guard refused it every round.
        async (refBlock) => {
          // What this round read lent a moment ago (issue 37: read again here, the same delegation). A lending of ours
          // since is stored first and makes the receiver busy, which keeps this one back (beforeBroadcast below).
          const now = lent[resource];
          if (now <= 0n) return null;
          return {
            type: 'UNDELEGATE',
            from: pool,
            to: receiver,
            amountUnits: 0n,
            currency: 'TRX',
            costPayer: lending.costPayer ?? 'SERVICE',
            signed: await ctx.chain.buildSignedResourceOp(ctx.gasWallet.privateKey, { kind: 'undelegate', resource, receiver, amountSun: now }, refBlock),
            energy: { energySource: 'POOL', stakeSun: now, resource },
          };
        },
        { beforeBroadcast: () => busyAt(ctx, receiver) },
      );
      if (outcome.state === 'exhausted') console.error(`ALERT ${resource} lent to ${receiver} not taken back: ${outcome.error}`);
      // One in flight is followed each round above, and its end changes the books (upkeep.ts, BooksMark); none is only time.
      if (outcome.state === 'pending' && !(await inFlight(ctx, lending.id))) lookAgain = true;
    }
  }
  return lookAgain;
}

/** Whether the taking back of the lending `lendingId` has an attempt signed or broadcast, not final. */
async function inFlight(ctx: WorkerContext, lendingId: number): Promise<boolean> {
  const row = await ctx.prisma.transaction.findFirst({ where: { sendPurpose: 'ENERGY_RECLAIM', sendIndex: lendingId, sendState: { in: ['SIGNED', 'BROADCAST'] } }, select: { id: true } });
  return row !== null;
}

/**
 * Stake the pool has delegated to `receiver` that no lending of ours explains (a crash that lost
 * the books' row, or a delegation made by hand from the gas wallet): taken back as a pool
 * operation of its own (UNDELEGATE, purpose ENERGY_RECLAIM, no anchor), stored before it is
 * broadcast and followed above; at most one per address and resource is in flight (migrations 0059, 0109).
 */
async function takeBackUnexplained(ctx: WorkerContext, receiver: string, resource: Resource, amountSun: bigint): Promise<void> {
  const signed = await ctx.chain.buildSignedResourceOp(ctx.gasWallet.privateKey, { kind: 'undelegate', resource, receiver, amountSun });
  try {
    const row = await storePoolOperation(ctx, 'UNDELEGATE', signed, { stakeSun: amountSun, resource, to: receiver });
    console.error(`ALERT the pool had ${amountSun} sun of ${resource} stake delegated to ${receiver} that no lending of the service explains; taking it back (${row.trnHash})`);
    await followSend(ctx, row, () => busyAt(ctx, receiver));
  } catch (err) {
    // Another operation of the resource to the address is in flight (one per address and resource): asked again next round.
    if ((err as { code?: string }).code !== 'P2002') throw err;
  }
}
