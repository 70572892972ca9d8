import { createHash } from 'node:crypto';
import type { AccountState } from './ledger';
import type { BlockRecord, TxResult } from './node';
import { energyLimit, energyUsed, netLimit, netUsed, type NetworkResources } from './stake';

/**
 * The JSON shapes java-tron writes (visible=false): addresses as 41-hex,
 * bytes as hex, and proto3 zero values left out.
 */

export const hexUtf8 = (text: string): string => Buffer.from(text, 'utf8').toString('hex');
const nonZero = <K extends string>(key: K, value: bigint): Partial<Record<K, bigint>> => (value !== 0n ? ({ [key]: value } as Record<K, bigint>) : {});

export function txJson(tx: TxResult): Record<string, unknown> {
  return { ret: [{ contractRet: tx.contractRet }], signature: tx.signature, txID: tx.txID, raw_data: tx.rawData, raw_data_hex: tx.rawDataHex };
}

export function blockJson(record: BlockRecord, withTransactions: boolean): Record<string, unknown> {
  const h = record.header;
  return {
    blockID: h.blockID,
    block_header: {
      raw_data: { number: h.number, txTrieRoot: h.txTrieRoot, witness_address: h.witness, parentHash: h.parentHash, version: 32, timestamp: h.timestamp },
      witness_signature: h.witnessSignature,
    },
    ...(withTransactions && record.txs.length ? { transactions: record.txs.map(txJson) } : {}),
  };
}

export function txInfoJson(tx: TxResult, record: BlockRecord): Record<string, unknown> {
  return {
    id: tx.txID,
    ...nonZero('fee', tx.fee),
    blockNumber: record.header.number,
    blockTimeStamp: record.header.timestamp,
    contractResult: [tx.contractResult],
    ...(tx.contractAddress ? { contract_address: tx.contractAddress } : {}),
    receipt: {
      ...(tx.energy
        ? { ...nonZero('energy_usage', tx.energy.usage ?? 0n), ...nonZero('energy_fee', tx.energy.fee), ...nonZero('energy_usage_total', tx.energy.usageTotal) }
        : {}),
      ...nonZero('net_usage', tx.netUsage),
      ...nonZero('net_fee', tx.netFee),
      ...(tx.energy ? { result: tx.contractRet } : {}),
    },
    ...(tx.logs.length ? { log: tx.logs } : {}),
    ...(tx.internal?.length ? { internal_transactions: tx.internal.map((c, i) => internalJson(tx.txID, i, c)) } : {}),
    ...nonZero('withdraw_expire_amount', tx.withdrawExpireAmount ?? 0n),
    ...(tx.failure ? { result: 'FAILED', resMessage: hexUtf8(tx.failure) } : {}),
  };
}

/**
 * One internal transaction as java-tron's TransactionInfo writes it (`InternalTransaction` in Tron.proto):
 * `callValueInfo` holds one entry per value sent, `{}` for a call without TRX (proto3 leaves 0 out);
 * `note` is the kind of call, hex ("call"); `rejected` appears only when true. The devnet's hash is its
 * own (java-tron's is a hash of the transaction and the call's position too).
 */
function internalJson(txID: string, index: number, c: NonNullable<TxResult['internal']>[number]): Record<string, unknown> {
  return {
    hash: createHash('sha256').update(`${txID}:${index}`).digest('hex'),
    caller_address: c.from,
    transferTo_address: c.to,
    callValueInfo: [nonZero('callValue', c.callValue)],
    note: hexUtf8('call'),
    ...(c.rejected ? { rejected: true } : {}),
  };
}

// What java-tron puts in `operations` of a default active permission.
const DEFAULT_OPERATIONS = '7fff1fc0033efb0f000000000000000000000000000000000000000000000000';

const hasStake = (s: AccountState) =>
  s.frozenBandwidth + s.frozenEnergy + s.delegatedBandwidth + s.delegatedEnergy + s.acquiredBandwidth + s.acquiredEnergy > 0n ||
  s.unfrozen.length > 0 ||
  s.netUsage > 0n ||
  s.energyUsage > 0n;

/** wallet/getaccount; the Stake 2.0 fields appear once the account has staked, delegated or received a delegation. */
export function accountJson(address: string, state: AccountState, freeNetUsed: bigint): Record<string, unknown> {
  if (state.createTime === null) return {};
  const keys = [{ address, weight: 1 }];
  const staked = hasStake(state);
  return {
    address,
    ...nonZero('balance', state.balance),
    create_time: state.createTime,
    ...(staked ? { ...nonZero('net_usage', state.netUsage), ...(state.netTime ? { latest_consume_time: state.netTime } : {}) } : {}),
    ...(freeNetUsed > 0n ? { free_net_usage: freeNetUsed, latest_consume_free_time: state.freeNetTime } : {}),
    account_resource: staked
      ? {
          ...nonZero('energy_usage', state.energyUsage),
          ...(state.energyTime ? { latest_consume_time_for_energy: state.energyTime } : {}),
          ...nonZero('delegated_frozenV2_balance_for_energy', state.delegatedEnergy),
          ...nonZero('acquired_delegated_frozenV2_balance_for_energy', state.acquiredEnergy),
        }
      : {},
    owner_permission: { permission_name: 'owner', threshold: 1, keys },
    active_permission: [{ type: 'Active', id: 2, permission_name: 'active', threshold: 1, operations: DEFAULT_OPERATIONS, keys }],
    ...(staked
      ? {
          frozenV2: [{ ...nonZero('amount', state.frozenBandwidth) }, { type: 'ENERGY', ...nonZero('amount', state.frozenEnergy) }, { type: 'TRON_POWER' }],
          ...(state.unfrozen.length
            ? { unfrozenV2: state.unfrozen.map((u) => ({ ...(u.resource === 'ENERGY' ? { type: 'ENERGY' } : {}), unfreeze_amount: u.amount, unfreeze_expire_time: u.expireTime })) }
            : {}),
          ...nonZero('delegated_frozenV2_balance_for_bandwidth', state.delegatedBandwidth),
          ...nonZero('acquired_delegated_frozenV2_balance_for_bandwidth', state.acquiredBandwidth),
        }
      : {}),
  };
}

/** wallet/getaccountnet: bandwidth only. */
export function accountNetJson(state: AccountState, freeNetUsed: bigint, freeNetLimit: bigint, net: NetworkResources, now: number): Record<string, unknown> {
  if (state.createTime === null) return {};
  const limit = netLimit(state, net);
  return {
    ...nonZero('freeNetUsed', freeNetUsed),
    freeNetLimit,
    ...nonZero('NetUsed', limit > 0n ? netUsed(state, now) : 0n),
    ...nonZero('NetLimit', limit),
    TotalNetLimit: net.totalNetLimit,
    TotalNetWeight: net.totalNetWeight,
  };
}

/** wallet/getaccountresource: bandwidth and energy, with the network totals a wallet divides by. */
export function accountResourceJson(state: AccountState, freeNetUsed: bigint, freeNetLimit: bigint, net: NetworkResources, now: number): Record<string, unknown> {
  if (state.createTime === null) return {};
  const limit = energyLimit(state, net);
  return {
    ...accountNetJson(state, freeNetUsed, freeNetLimit, net, now),
    ...nonZero('EnergyUsed', limit > 0n ? energyUsed(state, now) : 0n),
    ...nonZero('EnergyLimit', limit),
    TotalEnergyLimit: net.totalEnergyLimit,
    TotalEnergyWeight: net.totalEnergyWeight,
  };
}
