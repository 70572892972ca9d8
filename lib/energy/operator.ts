import type { Resource, SignedTransfer, Stake } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { cannotSucceed, followSend, waitingOutBackoff } from '@/lib/sends/steps';
import type { WorkerContext } from '@/lib/worker/context';
import { poolStatus } from './pool';

/**
 * An operator's stake or unstake of the pool (npm run energy; docs/energy.md): a stored send
 * (STAKE/UNSTAKE, purpose POOL_STAKE, no merchant), signed and stored before it is broadcast,
 * followed to its end here and, if this process dies first, by the worker's energy job. A landed
 * stake books the TRX that left the pool's balance (ledger kind STAKE); reconcile proves the
 * stake against the account's on chain.
 */
export async function changeStake(ctx: WorkerContext, kind: 'stake' | 'unstake', resource: Resource, amountSun: bigint): Promise<Transaction> {
  if (amountSun < 1_000_000n) throw new RangeError('stake at least 1 TRX');
  const signed = await ctx.chain.buildSignedResourceOp(ctx.gasWallet.privateKey, { kind, resource, amountSun });
  return storePoolOperation(ctx, kind === 'stake' ? 'STAKE' : 'UNSTAKE', signed, { stakeSun: amountSun, resource });
}

/**
 * A signed pool operation of no payment stored before it is broadcast: from the gas wallet, no
 * merchant, the service's cost. An operator's stake, unstake or withdrawal (purpose POOL_STAKE, to
 * the gas wallet), or the taking back of stake no lending explains (UNDELEGATE, ENERGY_RECLAIM, to
 * the receiver; lib/energy/reclaim.ts).
 */
export function storePoolOperation(
  ctx: WorkerContext,
  type: 'STAKE' | 'UNSTAKE' | 'WITHDRAW' | 'UNDELEGATE',
  signed: SignedTransfer,
  what: { stakeSun: bigint; resource?: Resource; to?: string },
): Promise<Transaction> {
  const reclaim = type === 'UNDELEGATE';
  return ctx.prisma.transaction.create({
    data: {
      merchantId: null,
      type,
      trnHash: signed.txId,
      chainRef: `${signed.txId}:send`,
      fromAddress: ctx.gasWallet.address,
      toAddress: what.to ?? ctx.gasWallet.address,
      amountUnits: 0n,
      currency: 'TRX',
      sendState: 'SIGNED',
      signedTx: signed.signedTx as object,
      expiresAt: new Date(signed.expiresAt),
      sendKey: `pool:${signed.txId}`,
      sendPurpose: reclaim ? 'ENERGY_RECLAIM' : 'POOL_STAKE',
      sendAttempt: 1,
      costPayer: 'SERVICE',
      ...(reclaim && { energySource: 'POOL' as const }),
      stakeSun: what.stakeSun,
      resource: what.resource ?? null,
    },
  });
}

/**
 * Returns the pool's expired unstaked TRX to its balance (WithdrawExpireUnfreeze): a stored send
 * like a stake (type WITHDRAW, purpose POOL_STAKE), or null when nothing has expired. What it
 * returned is read from its receipt when it lands (stake_sun, and the ledger's UNSTAKE row).
 */
export async function withdrawExpired(ctx: WorkerContext, read?: Stake): Promise<Transaction | null> {
  const stake = read ?? (await ctx.chain.getStake(ctx.gasWallet.address));
  if (stake.withdrawableSun === 0n) return null;
  const signed = await ctx.chain.buildSignedResourceOp(ctx.gasWallet.privateKey, { kind: 'withdraw' });
  return storePoolOperation(ctx, 'WITHDRAW', signed, { stakeSun: stake.withdrawableSun });
}

/**
 * The energy job's withdrawal: unstaked TRX whose 14 days are over goes back to the gas wallet's
 * balance on its own, one operation at a time (the job follows it to its end like a stake).
 * `stake` is the pool's as the round read it for the published status: a withdrawal changes
 * neither what the pool can lend nor what it lent, so one read serves both (issues 37 and 41: the
 * round asked the node for the gas wallet's account twice).
 */
export async function withdrawWhenExpired(ctx: WorkerContext, stake: Stake): Promise<void> {
  if (stake.withdrawableSun === 0n) return;
  if (await ctx.prisma.transaction.count({ where: { sendPurpose: 'POOL_STAKE', sendState: { in: ['SIGNED', 'BROADCAST'] } } })) return;
  const row = await withdrawExpired(ctx, stake);
  if (row) console.log(`energy: withdrawing ${row.stakeSun} sun of expired unstaked TRX to the gas wallet, ${row.trnHash}`);
}

/** Follows a pool operation until it is final (confirmed or failed); the worker's energy job finishes it if this stops first. */
export async function settleStake(ctx: WorkerContext, row: Transaction, timeoutMs = 180_000): Promise<Transaction> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await followSend(ctx, row);
    if (outcome.state === 'confirmed') return outcome.row;
    const now = await ctx.prisma.transaction.findUniqueOrThrow({ where: { id: row.id } });
    if (now.sendState === 'FAILED') throw new Error(`the ${row.type.toLowerCase()} failed: ${now.error ?? 'unknown'}`);
    if (Date.now() > deadline) throw new Error(`the ${row.type.toLowerCase()} ${row.trnHash} is not final yet; the worker follows it`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/**
 * ENERGY_POOL_AUTOSTAKE (the devnet default run): once the scanner has booked the gas wallet's
 * opening balance (a stake before it would be in neither), a pool with no stake stakes the
 * configured TRX for energy and for bandwidth, so a newcomer's first USDT payment uses it.
 *
 * Decided per resource, from the books, every round until done, not once for both: a round cut
 * short after its first stake (a node's reset connection on the second broadcast, a worker killed)
 * stakes the other one next round, and a stake proven dead (expired unsent: FAILED with no block)
 * is staked again after the sends' backoff (SEND_RETRY_BASE_MS doubling). Before 2026-12-04 any
 * pool operation ended the autostake for good: a CI run waited four minutes for a pool staked once
 * of twice. A resource is left alone once a stake of it landed (an operator who unstaked it
 * since decided so), while the chain shows stake of it, or once a stake of it failed in a block or
 * was refused for good: the same stake would fail again, and the ALERT said so.
 */
export async function autostake(ctx: WorkerContext): Promise<void> {
  const spec = ctx.settings.ENERGY_POOL_AUTOSTAKE;
  if (!spec || ctx.settings.ENERGY_POOL === 'off') return;
  if (!(await ctx.prisma.chainCursor.findFirst({ select: { name: true } }))) return;
  // One pool operation at a time: one in flight is followed to its end first (reclaimEnergy), and the chain shows no stake of it yet.
  if (await ctx.prisma.transaction.count({ where: { sendPurpose: 'POOL_STAKE', sendState: { in: ['SIGNED', 'BROADCAST'] } } })) return;
  const [energyTrx, bandwidthTrx] = spec.split(':').map((v) => BigInt(v));
  const due = await autostakesDue(ctx, [
    ['ENERGY', energyTrx!],
    ['BANDWIDTH', bandwidthTrx!],
  ]);
  // Nothing left to stake: the node is not asked (issue 37: a round that acts on nothing asks nothing).
  if (due.length === 0) return;
  const status = await poolStatus(ctx);
  for (const [resource, trx] of due) {
    if (status.stake.frozenSun[resource] + status.stake.delegatedSun[resource] > 0n) continue;
    const row = await changeStake(ctx, 'stake', resource, trx * 1_000_000n);
    console.log(`energy: staking ${trx} TRX of the gas wallet for ${resource} (ENERGY_POOL_AUTOSTAKE), ${row.trnHash}`);
    await followSend(ctx, row);
  }
}

/** The configured stakes the books say are still to make now (autostake above says when). */
async function autostakesDue(ctx: WorkerContext, wanted: [Resource, bigint][]): Promise<[Resource, bigint][]> {
  const configured = wanted.filter(([, trx]) => trx > 0n);
  if (configured.length === 0) return [];
  // One query for every configured resource: this runs on each energy round, after both stakes landed too.
  const stakes = await ctx.prisma.transaction.findMany({
    where: { sendPurpose: 'POOL_STAKE', type: 'STAKE', resource: { in: configured.map(([resource]) => resource) } },
    select: { resource: true, sendState: true, blockNumber: true, error: true, updatedAt: true },
    orderBy: { id: 'asc' },
  });
  const due: [Resource, bigint][] = [];
  for (const [resource, trx] of configured) {
    const ofResource = stakes.filter((r) => r.resource === resource);
    if (ofResource.some((r) => r.sendState !== 'FAILED' || cannotSucceed(r))) continue;
    const last = ofResource.at(-1);
    // Each earlier stake of the resource was one attempt: the wait doubles with them, as a send's does.
    if (last && waitingOutBackoff(ctx, last, ofResource.length)) continue;
    due.push([resource, trx]);
  }
  return due;
}
