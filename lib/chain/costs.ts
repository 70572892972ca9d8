import type { AccountResources, BatchCost, ChainParameters, TransferCost } from './types';

/** Bytes a node adds per contract for the result when charging bandwidth (java-tron MAX_RESULT_SIZE_IN_TX). */
const RESULT_BYTES = 64n;
const SIGNATURE_BYTES = 65;

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/**
 * Bandwidth a transaction with one signature consumes: its protobuf size
 * (field 1 raw_data, field 2 signature, each tag + length + bytes) plus the
 * result allowance.
 */
export function transactionBandwidth(rawDataHex: string): bigint {
  const raw = rawDataHex.length / 2;
  const size = 1 + varintSize(raw) + raw + 1 + varintSize(SIGNATURE_BYTES) + SIGNATURE_BYTES;
  return BigInt(size) + RESULT_BYTES;
}

/** What a sender still has to spend before TRX gets burned; consumed as transfers are costed. */
export interface ResourceBudget {
  freeBandwidth: bigint;
  stakedBandwidth: bigint;
  stakedEnergy: bigint;
}

export function budgetOf(resources: AccountResources): ResourceBudget {
  const left = (limit: bigint, used: bigint) => (limit > used ? limit - used : 0n);
  return {
    freeBandwidth: left(resources.freeBandwidthLimit, resources.freeBandwidthUsed),
    stakedBandwidth: left(resources.stakedBandwidthLimit, resources.stakedBandwidthUsed),
    stakedEnergy: left(resources.energyLimit, resources.energyUsed),
  };
}

/**
 * The TRX one transfer burns, following java-tron's order: a transaction that
 * creates an account pays the create-account fee instead of bandwidth unless
 * staked bandwidth covers it; otherwise staked bandwidth, then the free
 * allowance, then burning. A shortfall is burned whole, not in part.
 */
export function transferCost(
  need: { energy: bigint; bandwidth: bigint; createsAccount: boolean },
  budget: ResourceBudget,
  params: ChainParameters,
): TransferCost {
  let bandwidthFeeSun = 0n;
  let activationFeeSun = 0n;
  if (need.createsAccount) {
    activationFeeSun = params.createAccountSystemFeeSun;
    const stakedNeed = need.bandwidth * params.createAccountBandwidthRate;
    if (budget.stakedBandwidth >= stakedNeed) budget.stakedBandwidth -= stakedNeed;
    else activationFeeSun += params.createAccountFeeSun;
  } else if (budget.stakedBandwidth >= need.bandwidth) {
    budget.stakedBandwidth -= need.bandwidth;
  } else if (budget.freeBandwidth >= need.bandwidth) {
    budget.freeBandwidth -= need.bandwidth;
  } else {
    bandwidthFeeSun = need.bandwidth * params.bandwidthFeeSun;
  }
  const senderEnergy = budget.stakedEnergy;
  const fromStake = need.energy < budget.stakedEnergy ? need.energy : budget.stakedEnergy;
  budget.stakedEnergy -= fromStake;
  const energyFeeSun = (need.energy - fromStake) * params.energyFeeSun;
  return {
    energy: need.energy,
    bandwidth: need.bandwidth,
    createsAccount: need.createsAccount,
    energyFeeSun,
    bandwidthFeeSun,
    activationFeeSun,
    totalFeeSun: energyFeeSun + bandwidthFeeSun + activationFeeSun,
    senderEnergy,
    parameters: params,
  };
}

/** Totals of transfers costed in order (see transferCost). */
export function batchCost(costs: TransferCost[]): BatchCost {
  const sum = (pick: (c: TransferCost) => bigint) => costs.reduce((acc, c) => acc + pick(c), 0n);
  return {
    transfers: costs,
    energy: sum((c) => c.energy),
    bandwidth: sum((c) => c.bandwidth),
    accountsCreated: costs.filter((c) => c.createsAccount).length,
    energyFeeSun: sum((c) => c.energyFeeSun),
    bandwidthFeeSun: sum((c) => c.bandwidthFeeSun),
    activationFeeSun: sum((c) => c.activationFeeSun),
    totalFeeSun: sum((c) => c.totalFeeSun),
  };
}
