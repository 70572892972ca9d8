import type { AccountResources, Resource, Stake } from '@/lib/chain/types';
import type { CostPayer } from '@/lib/generated/prisma/client';
import { withMargin } from '@/lib/money/fees';
import { ensureSend, type Anchor, type SendOutcome, type SendStep } from '@/lib/sends/steps';
import type { WorkerContext } from '@/lib/worker/context';

/**
 * The service's own staked energy (Stake 2.0; docs/energy.md). The pool is the gas wallet's
 * stake: it freezes TRX for ENERGY (lent to invoice addresses for their USDT sends) and for
 * BANDWIDTH (which pays its own delegate and undelegate transactions and spares the 0.1 TRX
 * create-account fee when it activates an address). Every lending is a stored send
 * (DELEGATE), built, signed and stored before it is broadcast like any other.
 */

const TRX = 1_000_000n;
const divCeil = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** Why a send cannot be paid by the pool now: the caller waits or falls back. */
export class EnergyUnavailable extends Error {}

/**
 * Stake (sun, whole TRX: a node counts a delegation's energy per whole TRX) that yields `energy`
 * a day at the network's live totals: energy per staked TRX = TotalEnergyLimit / TotalEnergyWeight.
 * A delegation is at least 1 TRX.
 */
export function stakeForEnergy(energy: bigint, totals: Pick<AccountResources, 'totalEnergyLimit' | 'totalEnergyWeight'>): bigint {
  if (energy <= 0n) return 0n;
  if (totals.totalEnergyLimit <= 0n) throw new EnergyUnavailable('the node reports no TotalEnergyLimit');
  const trx = divCeil(energy * totals.totalEnergyWeight, totals.totalEnergyLimit);
  return (trx < 1n ? 1n : trx) * TRX;
}

/** Energy (units) that `stakeSun` yields a day at the live totals. */
export function energyForStake(stakeSun: bigint, totals: Pick<AccountResources, 'totalEnergyLimit' | 'totalEnergyWeight'>): bigint {
  if (totals.totalEnergyWeight <= 0n) return 0n;
  return ((stakeSun / TRX) * totals.totalEnergyLimit) / totals.totalEnergyWeight;
}

export interface PoolStatus {
  address: string;
  /** ENERGY_POOL is `auto` and the pool has energy stake (its own or lent out). */
  enabled: boolean;
  stake: Stake;
  resources: AccountResources;
  /** Stake the pool may still lend now (getcandelegatedmaxsize), and the energy that is a day. */
  lendableSun: bigint;
  lendableEnergy: bigint;
  /** Energy lent out now (delegated stake at the live totals). */
  lentEnergy: bigint;
}

export async function poolStatus(ctx: WorkerContext): Promise<PoolStatus> {
  const address = ctx.gasWallet.address;
  const [stake, resources, lendableSun] = await Promise.all([ctx.chain.getStake(address), ctx.chain.getAccountResources(address), ctx.chain.getDelegatableSun(address, 'ENERGY')]);
  return {
    address,
    enabled: ctx.settings.ENERGY_POOL === 'auto' && stake.frozenSun.ENERGY + stake.delegatedSun.ENERGY > 0n,
    stake,
    resources,
    lendableSun,
    lendableEnergy: energyForStake(lendableSun, resources),
    lentEnergy: energyForStake(stake.delegatedSun.ENERGY, resources),
  };
}

/** Energy `address` can spend now: its limit (own and lent stake) less what it used. */
export async function energyAvailable(ctx: WorkerContext, address: string): Promise<bigint> {
  return (await available(ctx, address)).ENERGY;
}

/** What `address` can spend now of each resource from stake (its own or lent): energy units, bandwidth bytes. */
async function available(ctx: WorkerContext, address: string): Promise<Record<Resource, bigint>> {
  const r = await ctx.chain.getAccountResources(address);
  const left = (limit: bigint, used: bigint) => (limit > used ? limit - used : 0n);
  return { ENERGY: left(r.energyLimit, r.energyUsed), BANDWIDTH: left(r.stakedBandwidthLimit, r.stakedBandwidthUsed) };
}

/** Stake (whole TRX) that yields `amount` of `resource` a day at the live totals. */
function stakeFor(resource: Resource, amount: bigint, totals: AccountResources): bigint {
  if (resource === 'ENERGY') return stakeForEnergy(amount, totals);
  if (amount <= 0n) return 0n;
  if (totals.totalNetLimit <= 0n) throw new EnergyUnavailable('the node reports no TotalNetLimit');
  const trx = divCeil(amount * totals.totalNetWeight, totals.totalNetLimit);
  return (trx < 1n ? 1n : trx) * TRX;
}

const amountFor = (resource: Resource, stakeSun: bigint, totals: AccountResources) =>
  resource === 'ENERGY' ? energyForStake(stakeSun, totals) : totals.totalNetWeight > 0n ? ((stakeSun / TRX) * totals.totalNetLimit) / totals.totalNetWeight : 0n;

/**
 * What lending `receiver` `amount` of `resource` (energy units, bandwidth bytes) for a send needs
 * from the pool now, or why it cannot: the stake to delegate (0 when the receiver already has it:
 * a delegation not yet taken back, or its own). Energy is lent with ENERGY_MARGIN_PERCENT.
 * `poolRead`: the pool as the same decision read it a moment before (`poolStatus`, energy only), and
 * `receiverEnergy` the receiver's energy as that decision's estimate of its send read it, not read
 * again (issue 37); a lending's own need (`lend`) reads the pool fresh inside the send's build, and
 * the receiver too unless its send's estimate in the same round read it.
 */
export async function lendingNeed(
  ctx: WorkerContext,
  receiver: string,
  amount: bigint,
  resource: Resource = 'ENERGY',
  margin = true,
  poolRead?: Pick<PoolStatus, 'resources' | 'lendableSun'>,
  receiverEnergy?: bigint,
): Promise<{ stakeSun: bigint; amount: bigint }> {
  const want = resource === 'ENERGY' && margin ? withMargin(amount, ctx.settings.ENERGY_MARGIN_PERCENT) : amount;
  // Nothing to lend (a send whose bytes the address's free bandwidth covers): nothing to read (issue 37).
  if (want <= 0n) return { stakeSun: 0n, amount: 0n };
  const have = resource === 'ENERGY' && receiverEnergy !== undefined ? receiverEnergy : (await available(ctx, receiver))[resource];
  if (have >= want) return { stakeSun: 0n, amount: 0n };
  const read = resource === 'ENERGY' ? poolRead : undefined;
  const pool = read?.resources ?? (await ctx.chain.getAccountResources(ctx.gasWallet.address));
  const stakeSun = stakeFor(resource, want - have, pool);
  const lendable = read?.lendableSun ?? (await ctx.chain.getDelegatableSun(ctx.gasWallet.address, resource));
  if (lendable < stakeSun) {
    const what = resource === 'ENERGY' ? 'energy' : 'bytes of bandwidth';
    throw new EnergyUnavailable(`the pool can lend ${amountFor(resource, lendable, pool)} ${what} now, the send needs ${want - have} more; it regenerates over 24 h`);
  }
  return { stakeSun, amount: want - have };
}

/**
 * The lending step of one send attempt (FORWARD_ENERGY, REFUND_ENERGY, FORWARD_BANDWIDTH, ...;
 * index = the attempt): the pool delegates to `receiver` the `resource` that `amount()` says the
 * send needs. Asked again after it confirms (topUp), so energy used meanwhile or a higher estimate
 * gets a second delegation for the same attempt; `skipped` means the receiver holds it now.
 * `margin` false: `amount` is what the receiver must hold, ENERGY_MARGIN_PERCENT already counted.
 * Throws EnergyUnavailable when the pool has not enough headroom.
 */
export function lend(
  ctx: WorkerContext,
  anchor: Anchor,
  step: SendStep,
  receiver: string,
  resource: Resource,
  amount: () => Promise<bigint>,
  costPayer: CostPayer,
  /**
   * `landed`: done once in a head block (SendOptions.landed, issue 24); `margin`: lend ENERGY_MARGIN_PERCENT more (default);
   * `receiverEnergy`: the receiver's energy as its send's estimate in this round read it (else read here).
   */
  options: { landed?: boolean; margin?: boolean; receiverEnergy?: () => Promise<bigint | undefined> } = {},
): Promise<SendOutcome> {
  return ensureSend(
    ctx,
    anchor,
    // Sent to the receiver, and planned on what is there already (another payment's lending): bound to it (bindingBlock).
    { ...step, to: receiver },
    async (refBlock) => {
      const need = await lendingNeed(ctx, receiver, await amount(), resource, options.margin ?? true, undefined, await options.receiverEnergy?.());
      if (need.stakeSun === 0n) return null;
      const signed = await ctx.chain.buildSignedResourceOp(ctx.gasWallet.privateKey, { kind: 'delegate', resource, receiver, amountSun: need.stakeSun }, refBlock);
      return {
        type: 'DELEGATE',
        from: ctx.gasWallet.address,
        to: receiver,
        amountUnits: 0n,
        currency: 'TRX',
        costPayer,
        signed,
        energy: { energySource: 'POOL', energyUnits: need.amount, stakeSun: need.stakeSun, resource },
      };
    },
    { topUp: true, landed: options.landed },
  );
}
