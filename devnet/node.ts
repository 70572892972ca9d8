import { TronWeb, utils } from 'tronweb';
import { Ledger, recoveredUsage, type AccountState, type AccountView } from './ledger';
import { param } from './params';
import { BlockLog } from './store';
import { buildTx, parseSignedTx, recoverSigner, TxFormatError, type ContractCall, type RawHeader, type SignedTx } from './transaction';
import { callUsdt, type CallOutcome, type Log } from './usdt';
import type { DevnetKey } from './genesis';

export interface BlockHeader {
  number: number;
  timestamp: number;
  parentHash: string;
  txTrieRoot: string;
  witness: string;
  blockID: string;
  witnessSignature: string;
}

export type ContractRet = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY';

/** A transaction as executed: what gettransactionbyid and gettransactioninfobyid report. */
export interface TxResult {
  txID: string;
  rawData: Record<string, unknown>;
  rawDataHex: string;
  signature: string[];
  contractRet: ContractRet;
  fee: bigint;
  netUsage: bigint;
  netFee: bigint;
  /** Present for contract calls only, as on a real node. */
  energy: { usageTotal: bigint; fee: bigint } | null;
  contractResult: string;
  contractAddress: string | null;
  logs: Log[];
  /** Why a contract call failed; utf8 (the API hex-encodes it). */
  failure: string | null;
}

export interface BlockRecord {
  header: BlockHeader;
  txs: TxResult[];
  /** Post-block state of every account the block touched. */
  accounts: Record<string, AccountState>;
  /** Only on block 0: who the chain was created for. */
  genesis?: { faucet: string; usdtContract: string; witness: string };
}

/** broadcasttransaction's reply, in the shape java-tron writes it. */
export type BroadcastReply = { result: true; txid: string } | { code: string; txid: string; message: string } | { Error: string };

export interface NodeOptions {
  dataDir: string;
  blockMs: number;
  solidifiedDepth: number;
  faucet: DevnetKey;
  witness: DevnetKey;
  usdtContract: string;
}

class Rejection extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const hex41 = (base58: string) => TronWeb.address.toHex(base58).toLowerCase();
const base58 = (hex: string) => TronWeb.address.fromHex(hex);
const sha256Hex = (bytes: Uint8Array) => utils.ethersUtils.sha256(bytes).slice(2);
const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * The chain: accepted transactions execute at once against the head state and
 * wait in the pending pool; every `blockMs` all of them go into a block, which
 * is written to the log before anyone can see it.
 */
export class DevNode {
  readonly usdtContract: string;
  readonly faucet: string;
  private readonly ledger = new Ledger();
  private readonly blocks: BlockRecord[] = [];
  private readonly txIndex = new Map<string, { block: number; index: number }>();
  // TaPoS: the last 65536 blocks by the low two bytes of their number.
  private readonly refBlocks = new Map<string, string>();
  private pending: TxResult[] = [];
  private readonly pendingIds = new Set<string>();
  private readonly touched = new Set<string>();
  private readonly log: BlockLog<BlockRecord>;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: NodeOptions) {
    this.usdtContract = hex41(options.usdtContract);
    this.faucet = hex41(options.faucet.address);
    this.log = new BlockLog<BlockRecord>(options.dataDir);
    const records = this.log.open();
    const genesis = records[0]?.genesis;
    if (genesis && (genesis.faucet !== options.faucet.address || genesis.usdtContract !== options.usdtContract)) {
      this.log.close();
      throw new Error(`${options.dataDir} holds a devnet created for faucet ${genesis.faucet}; use that key or another data directory`);
    }
    for (const record of records) this.accept(record);
    if (!this.blocks.length) this.createGenesis();
  }

  get blockMs(): number {
    return this.options.blockMs;
  }

  get solidifiedDepth(): number {
    return this.options.solidifiedDepth;
  }

  start(): void {
    this.timer ??= setInterval(() => this.produceBlock(), this.options.blockMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.log.close();
  }

  head(): BlockRecord {
    return this.blocks[this.blocks.length - 1]!;
  }

  solidNumber(): number {
    return Math.max(0, this.head().header.number - this.options.solidifiedDepth);
  }

  block(number: number): BlockRecord | undefined {
    return this.blocks[number];
  }

  blockById(id: string): BlockRecord | undefined {
    const record = this.blocks[parseInt(id.slice(0, 16), 16)];
    return record?.header.blockID === id ? record : undefined;
  }

  /** A committed transaction and its block. */
  findTx(txID: string): { tx: TxResult; block: BlockRecord } | undefined {
    const at = this.txIndex.get(txID);
    if (!at) return undefined;
    const block = this.blocks[at.block]!;
    return { tx: block.txs[at.index]!, block };
  }

  /** Accounts as of the head (pending included) or of the solidified block. */
  accounts(solid: boolean): AccountView {
    return solid ? this.ledger.at(this.solidNumber()) : this.ledger;
  }

  /** Free bandwidth used, after recovery up to the head block. */
  freeNetUsed(state: AccountState): bigint {
    return recoveredUsage(state.freeNetUsage, state.freeNetTime, this.head().header.timestamp);
  }

  /** The reference-block fields a transaction built now would carry. */
  refHeader(): Omit<RawHeader, 'fee_limit' | 'data'> {
    const { number, blockID, timestamp } = this.head().header;
    return {
      ref_block_bytes: refBytes(number),
      ref_block_hash: blockID.slice(16, 32),
      expiration: timestamp + 60_000,
      timestamp: Date.now(),
    };
  }

  buildUnsigned(call: ContractCall, feeLimit?: number) {
    return buildTx(call, { ...this.refHeader(), ...(feeLimit ? { fee_limit: feeLimit } : {}) });
  }

  /** A read-only contract call against the head or solidified state. */
  call(contract: string, caller: string, data: string, callValue: bigint, solid: boolean): CallOutcome | null {
    if (contract !== this.usdtContract) return null;
    return callUsdt(this.accounts(solid), contract, caller, data, callValue);
  }

  broadcast(body: unknown): BroadcastReply {
    let tx: SignedTx;
    try {
      tx = parseSignedTx(body);
    } catch (e) {
      if (e instanceof TxFormatError) return { Error: `class java.lang.IllegalArgumentException : ${e.message}` };
      throw e;
    }
    try {
      this.admit(tx);
      return { result: true, txid: tx.txID };
    } catch (e) {
      if (e instanceof Rejection) return { code: e.code, txid: tx.txID, message: Buffer.from(e.message, 'utf8').toString('hex') };
      throw e;
    }
  }

  produceBlock(): BlockRecord {
    const parent = this.head().header;
    const txs = this.pending;
    const accounts = Object.fromEntries([...this.touched].map((a) => [a, this.ledger.get(a)]));
    const record: BlockRecord = { header: this.header(parent.number + 1, Math.max(Date.now(), parent.timestamp + 1), parent.blockID, txs), txs, accounts };
    this.log.append(record);
    this.pending = [];
    this.pendingIds.clear();
    this.touched.clear();
    this.accept(record);
    return record;
  }

  private createGenesis(): void {
    const { faucet, witness, usdtContract } = this.options;
    const now = Date.now();
    const fresh = { freeNetUsage: 0n, freeNetTime: 0 };
    const genesis: BlockRecord = {
      header: this.header(0, now, '0'.repeat(64), []),
      txs: [],
      accounts: {
        [this.faucet]: { balance: param('genesisFaucetSun'), usdt: param('genesisFaucetUsdt'), createTime: now, ...fresh },
        [this.usdtContract]: { balance: 0n, usdt: 0n, createTime: now, ...fresh },
      },
      genesis: { faucet: faucet.address, usdtContract, witness: witness.address },
    };
    this.log.append(genesis);
    this.accept(genesis);
    // tronweb reads `number` from the head block; block 0's would be absent on a real node.
    this.produceBlock();
  }

  private accept(record: BlockRecord): void {
    const { number, blockID } = record.header;
    this.blocks.push(record);
    this.ledger.commit(number, record.accounts);
    record.txs.forEach((tx, index) => this.txIndex.set(tx.txID, { block: number, index }));
    this.refBlocks.set(refBytes(number), blockID.slice(16, 32));
  }

  private header(number: number, timestamp: number, parentHash: string, txs: TxResult[]): BlockHeader {
    const witness = hex41(this.options.witness.address);
    const txTrieRoot = txs.length ? sha256Hex(Buffer.from(txs.map((t) => t.txID).join(''), 'hex')) : '0'.repeat(64);
    const hash = sha256Hex(utf8(JSON.stringify({ number, timestamp, parentHash, txTrieRoot, witness })));
    const blockID = number.toString(16).padStart(16, '0') + hash.slice(16);
    const witnessSignature = utils.crypto.ECKeySign(utils.code.hexStr2byteArray(hash), utils.code.hexStr2byteArray(this.options.witness.privateKey));
    return { number, timestamp, parentHash, txTrieRoot, witness, blockID, witnessSignature };
  }

  // The checks of java-tron's Wallet.broadcastTransaction and Manager.processTransaction, in their order.
  private admit(tx: SignedTx): void {
    if (this.pendingIds.has(tx.txID)) throw new Rejection('DUP_TRANSACTION_ERROR', 'Transaction already exists.');
    if (!tx.signature.length) throw new Rejection('SIGERROR', 'Validate signature error: miss sig or contract');
    for (const sig of tx.signature) {
      if (sig.length !== 130) throw new Rejection('SIGERROR', `Validate signature error: Signature size is ${sig.length / 2}`);
    }
    const headTime = this.head().header.timestamp;
    if (tx.header.expiration < headTime + this.options.blockMs) throw new Rejection('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    const owner = tx.call.owner;
    for (const sig of tx.signature) {
      const signer = recoverSigner(tx.txID, sig);
      if (signer !== owner) {
        throw new Rejection('SIGERROR', `Validate signature error: ${sig} is signed by ${signer ? base58(signer) : 'nobody'} but it is not contained of permission.`);
      }
    }
    if (this.refBlocks.get(tx.header.ref_block_bytes) !== tx.header.ref_block_hash) throw new Rejection('TAPOS_ERROR', 'Tapos check error.');
    if (tx.header.expiration > headTime + Number(param('maxExpirationMs'))) throw new Rejection('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    if (this.txIndex.has(tx.txID)) throw new Rejection('DUP_TRANSACTION_ERROR', 'Dup transaction.');

    const result = tx.call.type === 'TransferContract' ? this.transfer(tx, tx.call) : this.trigger(tx, tx.call);
    this.pending.push(result);
    this.pendingIds.add(tx.txID);
  }

  private ownerAccount(owner: string): AccountState {
    const state = this.ledger.get(owner);
    if (state.createTime === null) throw new Rejection('CONTRACT_VALIDATE_ERROR', `Contract validate error : account [${base58(owner)}] does not exist`);
    return state;
  }

  /** Charges bandwidth the way BandwidthProcessor does; mutates `state`. */
  private chargeBandwidth(state: AccountState, tx: SignedTx, createsAccount: boolean): { netUsage: bigint; netFee: bigint } {
    const bytes = tx.bytes + param('resultBytesPerContract');
    const burn = (fee: bigint) => {
      if (state.balance < fee) throw new Rejection('BANDWITH_ERROR', 'Account resource insufficient error.');
      state.balance -= fee;
      return { netUsage: 0n, netFee: fee };
    };
    if (createsAccount) return burn(param('createAccountFeeSun'));
    const now = this.head().header.timestamp;
    const used = recoveredUsage(state.freeNetUsage, state.freeNetTime, now);
    if (used + bytes <= param('freeBandwidthBytes')) {
      state.freeNetUsage = used + bytes;
      state.freeNetTime = now;
      return { netUsage: bytes, netFee: 0n };
    }
    return burn(bytes * param('bandwidthFeeSun'));
  }

  private transfer(tx: SignedTx, call: Extract<ContractCall, { type: 'TransferContract' }>): TxResult {
    const owner = this.ownerAccount(call.owner);
    const recipient = this.ledger.get(call.to);
    const createsAccount = recipient.createTime === null;
    const net = this.chargeBandwidth(owner, tx, createsAccount);
    if (call.amount <= 0n) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Amount must be greater than 0.');
    if (call.to === call.owner) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Cannot transfer TRX to yourself.');
    if (call.to === this.usdtContract) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Cannot transfer TRX to a smartContract.');
    const systemFee = createsAccount ? param('createAccountSystemFeeSun') : 0n;
    if (owner.balance < call.amount + systemFee) {
      throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Validate TransferContract error, balance is not sufficient.');
    }
    owner.balance -= call.amount + systemFee;
    recipient.balance += call.amount;
    if (createsAccount) recipient.createTime = this.head().header.timestamp;
    this.save(call.owner, owner);
    this.save(call.to, recipient);
    return { ...this.base(tx), contractRet: 'SUCCESS', fee: systemFee + net.netFee, ...net, energy: null, contractResult: '', contractAddress: null, logs: [], failure: null };
  }

  private trigger(tx: SignedTx, call: Extract<ContractCall, { type: 'TriggerSmartContract' }>): TxResult {
    const owner = this.ownerAccount(call.owner);
    if (call.contract !== this.usdtContract) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : No contract or not a smart contract');
    const feeLimit = BigInt(tx.header.fee_limit ?? 0);
    if (feeLimit < 0n || feeLimit > param('maxFeeLimitSun')) {
      throw new Rejection('CONTRACT_VALIDATE_ERROR', `Contract validate error : feeLimit must be >= 0 and <= ${param('maxFeeLimitSun')}`);
    }
    const net = this.chargeBandwidth(owner, tx, false);
    const outcome = callUsdt(this.ledger, call.contract, call.owner, call.data, call.callValue);
    const price = param('energyFeeSun');
    const energyLimit = (feeLimit < owner.balance ? feeLimit : owner.balance) / price;
    let contractRet: ContractRet = 'SUCCESS';
    let energyUsed = outcome.energy;
    let failure: string | null = null;
    if (outcome.energy > energyLimit) {
      contractRet = 'OUT_OF_ENERGY';
      energyUsed = energyLimit;
      failure = `Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[${energyLimit}], curOpEnergy[${outcome.energy - energyLimit}], usedEnergy[${energyLimit}]`;
    } else if (!outcome.ok) {
      contractRet = 'REVERT';
      failure = 'REVERT opcode executed';
    }
    const energyFee = energyUsed * price;
    owner.balance -= energyFee;
    this.save(call.owner, owner);
    const succeeded = contractRet === 'SUCCESS';
    if (succeeded && outcome.transfer) {
      const { from, to, amount } = outcome.transfer;
      const sender = this.ledger.get(from);
      sender.usdt -= amount;
      this.save(from, sender);
      const receiver = this.ledger.get(to);
      receiver.usdt += amount;
      this.save(to, receiver);
    }
    return {
      ...this.base(tx),
      contractRet,
      fee: energyFee + net.netFee,
      ...net,
      energy: { usageTotal: energyUsed, fee: energyFee },
      contractResult: contractRet === 'OUT_OF_ENERGY' ? '' : outcome.returnData,
      contractAddress: call.contract,
      logs: succeeded ? outcome.logs : [],
      failure,
    };
  }

  private base(tx: SignedTx): Pick<TxResult, 'txID' | 'rawData' | 'rawDataHex' | 'signature'> {
    return { txID: tx.txID, rawData: tx.rawData, rawDataHex: tx.rawDataHex, signature: tx.signature };
  }

  private save(address: string, state: AccountState): void {
    this.ledger.set(address, state);
    this.touched.add(address);
  }
}

function refBytes(number: number): string {
  return (number & 0xffff).toString(16).padStart(4, '0');
}
