import { recoveredUsage, type AccountState, type StakeTotals } from './ledger';
import { param } from './params';

/**
 * Stake 2.0 resource arithmetic, as java-tron's EnergyProcessor and
 * BandwidthProcessor do it: an account's daily limit is its share of the
 * network's total (its staked TRX over all staked TRX), usage recovers
 * linearly over 24 h. The devnet's own stakes add to a mainnet-sized
 * `network*WeightTrx` (devnet/params.ts), so one staked TRX yields about
 * what it yields on mainnet.
 */

const TRX = 1_000_000n;

export interface NetworkResources {
  totalEnergyLimit: bigint;
  totalEnergyWeight: bigint;
  totalNetLimit: bigint;
  totalNetWeight: bigint;
}

export function networkResources(totals: StakeTotals): NetworkResources {
  return {
    totalEnergyLimit: param('totalEnergyLimit'),
    totalEnergyWeight: param('networkEnergyWeightTrx') + totals.energySun / TRX,
    totalNetLimit: param('totalNetLimit'),
    totalNetWeight: param('networkNetWeightTrx') + totals.bandwidthSun / TRX,
  };
}

/** Daily energy of an account: (own undelegated + acquired stake) / total weight x total limit. */
export function energyLimit(state: AccountState, net: NetworkResources): bigint {
  return ((state.frozenEnergy + state.acquiredEnergy) / TRX) * net.totalEnergyLimit / net.totalEnergyWeight;
}

export function netLimit(state: AccountState, net: NetworkResources): bigint {
  return ((state.frozenBandwidth + state.acquiredBandwidth) / TRX) * net.totalNetLimit / net.totalNetWeight;
}

export const energyUsed = (state: AccountState, now: number): bigint => recoveredUsage(state.energyUsage, state.energyTime, now);
export const netUsed = (state: AccountState, now: number): bigint => recoveredUsage(state.netUsage, state.netTime, now);

/**
 * Stake the owner may still delegate (getcandelegatedmaxsize and
 * DelegateResourceActuator): its undelegated stake minus the part its
 * current usage occupies beyond what acquired stake covers.
 */
export function canDelegate(state: AccountState, resource: 'BANDWIDTH' | 'ENERGY', net: NetworkResources, now: number): bigint {
  const [used, weight, limit, frozen, acquired] =
    resource === 'ENERGY'
      ? [energyUsed(state, now), net.totalEnergyWeight, net.totalEnergyLimit, state.frozenEnergy, state.acquiredEnergy]
      : [netUsed(state, now), net.totalNetWeight, net.totalNetLimit, state.frozenBandwidth, state.acquiredBandwidth];
  const usageSun = (used * TRX * weight) / limit;
  const remain = usageSun > acquired ? usageSun - acquired : 0n;
  return frozen > remain ? frozen - remain : 0n;
}
