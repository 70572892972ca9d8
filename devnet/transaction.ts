import { TronWeb, utils } from 'tronweb';
import type { Resource } from './ledger';

/**
 * Transactions as a node sees them: rebuilt from the JSON fields through
 * tronweb's own protobuf encoder, so txID = sha256(raw_data) is computed the
 * way java-tron computes it and never taken from the client.
 */

export type ContractCall =
  | { type: 'TransferContract'; owner: string; to: string; amount: bigint }
  | { type: 'TriggerSmartContract'; owner: string; contract: string; data: string; callValue: bigint }
  // Stake 2.0, in the field shapes tronweb's transactionBuilder gives them.
  | { type: 'FreezeBalanceV2Contract'; owner: string; amount: bigint; resource: Resource }
  | { type: 'UnfreezeBalanceV2Contract'; owner: string; amount: bigint; resource: Resource }
  | { type: 'DelegateResourceContract'; owner: string; receiver: string; amount: bigint; resource: Resource; lock: boolean; lockPeriod: bigint }
  | { type: 'UnDelegateResourceContract'; owner: string; receiver: string; amount: bigint; resource: Resource }
  | { type: 'WithdrawExpireUnfreezeContract'; owner: string };

export interface RawHeader {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
  fee_limit?: number;
  data?: string;
}

export interface BuiltTx {
  txID: string;
  call: ContractCall;
  header: RawHeader;
  /** The node's JSON form of raw_data (addresses hex, int64 as bigint). */
  rawData: Record<string, unknown>;
  rawDataHex: string;
}

export interface SignedTx extends BuiltTx {
  signature: string[];
  /** Serialized size of the signed transaction, the base of its bandwidth. */
  bytes: bigint;
}

export class TxFormatError extends Error {}

const HEX = /^[0-9a-f]*$/;

// BANDWIDTH is the enum's zero: left out, as java-tron's JSON and tronweb's builders do.
const resourceField = (resource: Resource) => (resource === 'ENERGY' ? { resource } : {});

function contractValue(call: ContractCall): Record<string, unknown> {
  switch (call.type) {
    case 'TransferContract':
      return { amount: call.amount, owner_address: call.owner, to_address: call.to };
    case 'TriggerSmartContract':
      return {
        data: call.data,
        owner_address: call.owner,
        contract_address: call.contract,
        ...(call.callValue > 0n ? { call_value: call.callValue } : {}),
      };
    case 'FreezeBalanceV2Contract':
      return { owner_address: call.owner, frozen_balance: call.amount, ...resourceField(call.resource) };
    case 'UnfreezeBalanceV2Contract':
      return { owner_address: call.owner, unfreeze_balance: call.amount, ...resourceField(call.resource) };
    case 'DelegateResourceContract':
      return {
        owner_address: call.owner,
        receiver_address: call.receiver,
        balance: call.amount,
        ...resourceField(call.resource),
        ...(call.lock ? { lock: true } : {}),
        ...(call.lockPeriod > 0n ? { lock_period: call.lockPeriod } : {}),
      };
    case 'UnDelegateResourceContract':
      return { owner_address: call.owner, receiver_address: call.receiver, balance: call.amount, ...resourceField(call.resource) };
    case 'WithdrawExpireUnfreezeContract':
      return { owner_address: call.owner };
  }
}

/** The ResourceCode of a stake contract; TRON_POWER and unknown codes are refused as java-tron refuses them. */
function resourceCode(value: unknown): Resource {
  if (value === undefined || value === null || value === 'BANDWIDTH' || value === 0) return 'BANDWIDTH';
  if (value === 'ENERGY' || value === 1) return 'ENERGY';
  throw new TxFormatError('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
}

function parseCall(type: unknown, value: Record<string, unknown>): ContractCall {
  const owner = hexAddress(value.owner_address, 'owner_address');
  switch (type) {
    case 'TransferContract':
      return { type, owner, to: hexAddress(value.to_address, 'to_address'), amount: int64(value.amount, 'amount') };
    case 'TriggerSmartContract':
      return {
        type,
        owner,
        contract: hexAddress(value.contract_address, 'contract_address'),
        data: hexField(value.data ?? '', 'data'),
        callValue: int64(value.call_value, 'call_value'),
      };
    case 'FreezeBalanceV2Contract':
      return { type, owner, amount: int64(value.frozen_balance, 'frozen_balance'), resource: resourceCode(value.resource) };
    case 'UnfreezeBalanceV2Contract':
      return { type, owner, amount: int64(value.unfreeze_balance, 'unfreeze_balance'), resource: resourceCode(value.resource) };
    case 'DelegateResourceContract':
      return {
        type,
        owner,
        receiver: hexAddress(value.receiver_address, 'receiver_address'),
        amount: int64(value.balance, 'balance'),
        resource: resourceCode(value.resource),
        lock: value.lock === true,
        lockPeriod: int64(value.lock_period, 'lock_period'),
      };
    case 'UnDelegateResourceContract':
      return { type, owner, receiver: hexAddress(value.receiver_address, 'receiver_address'), amount: int64(value.balance, 'balance'), resource: resourceCode(value.resource) };
    case 'WithdrawExpireUnfreezeContract':
      return { type, owner };
    default:
      throw new TxFormatError(`${String(type)} is not supported by the devnet`);
  }
}

// tronweb's encoder takes JS numbers for int64 fields.
function forEncoder(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(forEncoder);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forEncoder(v)]));
  return value;
}

interface ProtoTransaction {
  addSignature(signature: Uint8Array): void;
  serializeBinary(): Uint8Array;
}

function encode(call: ContractCall, header: RawHeader): { built: BuiltTx; pb: ProtoTransaction } {
  const rawData: Record<string, unknown> = {
    contract: [{ parameter: { value: contractValue(call), type_url: `type.googleapis.com/protocol.${call.type}` }, type: call.type }],
    ref_block_bytes: header.ref_block_bytes,
    ref_block_hash: header.ref_block_hash,
    expiration: header.expiration,
    ...(header.fee_limit ? { fee_limit: header.fee_limit } : {}),
    timestamp: header.timestamp,
    ...(header.data ? { data: header.data } : {}),
  };
  const pb = utils.transaction.txJsonToPb(forEncoder({ raw_data: rawData, visible: false })) as ProtoTransaction;
  const built = {
    txID: utils.transaction.txPbToTxID(pb).replace(/^0x/, ''),
    call,
    header,
    rawData,
    rawDataHex: utils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  };
  return { built, pb };
}

export function buildTx(call: ContractCall, header: RawHeader): BuiltTx {
  return encode(call, header).built;
}

function hexAddress(value: unknown, field: string): string {
  if (typeof value !== 'string' || !TronWeb.isAddress(value)) throw new TxFormatError(`Invalid ${field}`);
  return TronWeb.address.toHex(value).toLowerCase();
}

function int64(value: unknown, field: string): bigint {
  if (value === undefined || value === null) return 0n;
  if ((typeof value !== 'number' && typeof value !== 'string') || !/^-?\d+$/.test(String(value))) throw new TxFormatError(`Invalid ${field}`);
  return BigInt(value);
}

function hexField(value: unknown, field: string): string {
  if (typeof value !== 'string' || !HEX.test(value.toLowerCase()) || value.length % 2) throw new TxFormatError(`Invalid ${field}`);
  return value.toLowerCase();
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TxFormatError(`Invalid ${field}`);
  return value as Record<string, unknown>;
}

/** Parses the JSON body of wallet/broadcasttransaction. */
export function parseSignedTx(body: unknown): SignedTx {
  const tx = record(body, 'transaction');
  const raw = record(tx.raw_data, 'raw_data');
  const contracts = raw.contract;
  if (!Array.isArray(contracts) || contracts.length !== 1) throw new TxFormatError('contract size should be exactly 1');
  const contract = record(contracts[0], 'contract');
  const value = record(record(contract.parameter, 'parameter').value, 'parameter.value');
  const call = parseCall(contract.type, value);
  const header: RawHeader = {
    ref_block_bytes: hexField(raw.ref_block_bytes, 'ref_block_bytes'),
    ref_block_hash: hexField(raw.ref_block_hash, 'ref_block_hash'),
    expiration: Number(int64(raw.expiration, 'expiration')),
    timestamp: Number(int64(raw.timestamp, 'timestamp')),
    ...(raw.fee_limit !== undefined ? { fee_limit: Number(int64(raw.fee_limit, 'fee_limit')) } : {}),
    ...(raw.data !== undefined ? { data: hexField(raw.data, 'data') } : {}),
  };
  const signature = Array.isArray(tx.signature) ? tx.signature.map((s) => hexField(String(s).replace(/^0x/, ''), 'signature')) : [];
  const { built, pb } = encode(call, header);
  for (const sig of signature) pb.addSignature(Uint8Array.from(utils.code.hexStr2byteArray(sig)));
  return { ...built, signature, bytes: BigInt(pb.serializeBinary().length) };
}

/** The hex address that produced `signature` over `txID`, or null when it is not a valid signature. */
export function recoverSigner(txID: string, signature: string): string | null {
  if (signature.length !== 130) return null;
  try {
    return utils.crypto.ecRecover(txID, signature).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * A transaction the devnet makes itself (its traffic, devnet/traffic.ts), in the form of a signed one:
 * `signature` stands in for its senders' (65 bytes, so its size and bandwidth are a real one's). It
 * never passes broadcast's signature check; the node executes it directly.
 */
export function selfSigned(call: ContractCall, header: RawHeader, signature: string): SignedTx {
  const { built, pb } = encode(call, header);
  pb.addSignature(Uint8Array.from(utils.code.hexStr2byteArray(signature)));
  return { ...built, signature: [signature], bytes: BigInt(pb.serializeBinary().length) };
}
