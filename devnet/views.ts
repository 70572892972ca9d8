import type { AccountState } from './ledger';
import type { BlockRecord, TxResult } from './node';

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
      ...(tx.energy ? { ...nonZero('energy_fee', tx.energy.fee), ...nonZero('energy_usage_total', tx.energy.usageTotal) } : {}),
      ...nonZero('net_usage', tx.netUsage),
      ...nonZero('net_fee', tx.netFee),
      ...(tx.energy ? { result: tx.contractRet } : {}),
    },
    ...(tx.logs.length ? { log: tx.logs } : {}),
    ...(tx.failure ? { result: 'FAILED', resMessage: hexUtf8(tx.failure) } : {}),
  };
}

// What java-tron puts in `operations` of a default active permission.
const DEFAULT_OPERATIONS = '7fff1fc0033efb0f000000000000000000000000000000000000000000000000';

export function accountJson(address: string, state: AccountState, freeNetUsed: bigint): Record<string, unknown> {
  if (state.createTime === null) return {};
  const keys = [{ address, weight: 1 }];
  return {
    address,
    ...nonZero('balance', state.balance),
    create_time: state.createTime,
    ...(freeNetUsed > 0n ? { free_net_usage: freeNetUsed, latest_consume_free_time: state.freeNetTime } : {}),
    account_resource: {},
    owner_permission: { permission_name: 'owner', threshold: 1, keys },
    active_permission: [{ type: 'Active', id: 2, permission_name: 'active', threshold: 1, operations: DEFAULT_OPERATIONS, keys }],
  };
}

export function accountNetJson(state: AccountState, freeNetUsed: bigint, freeNetLimit: bigint): Record<string, unknown> {
  if (state.createTime === null) return {};
  return { ...nonZero('freeNetUsed', freeNetUsed), freeNetLimit };
}
