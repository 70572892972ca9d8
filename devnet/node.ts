import { TronWeb, utils } from 'tronweb';
import { Faults, type FailResult, type Fault, type FaultSpec } from './faults';
import type { DevnetKey } from './genesis';
import { toNodeJson } from './json';
import { Ledger, normalize, recoveredUsage, type AccountState, type AccountView, type Delegation, type Resource } from './ledger';
import { param } from './params';
import { canDelegate, energyLimit, energyUsed, netLimit, netUsed, networkResources, type NetworkResources } from './stake';
import { BlockLog } from './store';
import { buildTx, parseSignedTx, recoverSigner, selfSigned, TxFormatError, type ContractCall, type RawHeader, type SignedTx } from './transaction';
import { callFakeToken, callPayer, FAKE_USDT_CONTRACT, PAYER_CONTRACT, type DevnetContract } from './contracts';
import { callUsdt, revert as revertOutcome, type CallOutcome, type InternalCall, type Log } from './usdt';
import { NO_TRAFFIC, standInSignature, TRAFFIC_FUNDING_SUN, TRAFFIC_FUNDING_USDT_UNITS, trafficAccounts, trafficCalls, type TrafficSettings } from './traffic';

export interface BlockHeader {
  number: number;
  timestamp: number;
  parentHash: string;
  txTrieRoot: string;
  witness: string;
  blockID: string;
  witnessSignature: string;
  /** Set on blocks made by a reorganisation, so they hash apart from the blocks they replace. */
  fork?: number;
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
  /** Present for contract calls only, as on a real node; `usage` is the part paid from staked energy. */
  energy: { usageTotal: bigint; fee: bigint; usage?: bigint } | null;
  contractResult: string;
  contractAddress: string | null;
  logs: Log[];
  /** Why a contract call failed; utf8 (the API hex-encodes it). */
  failure: string | null;
  /** Calls the contract made in turn (internal transactions); all rejected when the transaction failed. */
  internal?: InternalCall[];
  /** A failure forced by a fault, kept so that a reorganisation re-executes it the same way. */
  forced?: FailResult;
  /** Expired unstaked TRX paid back to the balance (WithdrawExpireUnfreeze, and UnfreezeBalanceV2 paying out what expired first). */
  withdrawExpireAmount?: bigint;
}

/** POST /devnet/set-balance, kept with its block so that a reorganisation replays it. */
export interface BalanceSet {
  address: string;
  balanceSun?: bigint;
  usdtUnits?: bigint;
  /** POST /devnet/usdt/blacklist: on (true) or off (false) the USDT contract's blacklist. */
  usdtFrozen?: boolean;
}

export interface BlockRecord {
  header: BlockHeader;
  txs: TxResult[];
  /** Post-block state of every account the block touched. */
  accounts: Record<string, AccountState>;
  /** Only on block 0: who the chain was created for. */
  genesis?: { faucet: string; usdtContract: string; witness: string };
  /** Balances set through the dev endpoint before this block's transactions. */
  adjustments?: BalanceSet[];
  /** Made by POST /devnet/solidify: this block and every block below it are final, whatever the depth says. */
  solidified?: true;
}

export interface ReorgRequest {
  /** How many of the newest blocks to replace; below the solidified depth. */
  depth?: number;
  /** Or: replace this block and every block above it (resolved against the head at the moment of the reorg). */
  fromBlock?: number;
  /** Transactions of those blocks that the new branch does not contain. */
  leaveOut?: string[];
  /** Transactions of those blocks moved, in this order, to the start of the first new block. */
  order?: string[];
}

export interface ReorgResult {
  forkBlock: number;
  replaced: string[];
  blocks: string[];
  leftOut: string[];
  /** Transactions of the old branch (or pending) that no longer execute on the new one, with the node's reason. */
  dropped: Array<{ txid: string; code: string; message: string }>;
}

/** A bad request to a dev endpoint (400). */
export class DevnetInputError extends Error {}

/** The solidified block `depth` blocks below a head (`byDepth`), unless finality is held lower. */
const finalityAt = (byDepth: number, held: number | null) => Math.max(0, held === null ? byDepth : Math.min(byDepth, held));

/** What the HTTP API reads: the node at its head, or a replica some blocks behind. */
export interface ChainView {
  readonly usdtContract: string;
  readonly faucet: string;
  /** Which of the devnet's contracts lives at a 41-hex address (devnet/usdt.ts, devnet/contracts.ts); null: none. */
  contractAt(address: string): DevnetContract | null;
  head(): BlockRecord;
  solidNumber(): number;
  block(number: number): BlockRecord | undefined;
  blockById(id: string): BlockRecord | undefined;
  findTx(txID: string): { tx: TxResult; block: BlockRecord } | undefined;
  accounts(solid: boolean): AccountView;
  network(): NetworkResources;
  freeNetUsed(state: AccountState): bigint;
  buildUnsigned(call: ContractCall, feeLimit?: number): ReturnType<typeof buildTx>;
  call(contract: string, caller: string, data: string, callValue: bigint, solid: boolean): CallOutcome | null;
  broadcast(body: unknown): BroadcastReply;
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
  /** Mainnet-shaped traffic from the start (devnet/traffic.ts); none unless given. */
  traffic?: TrafficSettings;
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

const TRX = 1_000_000n;
/** The traffic's contract calls carry what a wallet would set (100 TRX). */
const TRAFFIC_FEE_LIMIT_SUN = 100_000_000;
const validate = (message: string) => new Rejection('CONTRACT_VALIDATE_ERROR', `Contract validate error : ${message}`);
const delegationKey = (to: string, lock: boolean) => `${to}:${lock}`;

/**
 * The chain: accepted transactions execute at once against the head state and
 * wait in the pending pool; every `blockMs` all of them go into a block, which
 * is written to the log before anyone can see it. Faults (devnet/faults.ts)
 * can drop, hold back or fail chosen broadcasts, and `reorg` replaces the
 * newest unsolidified blocks.
 */
export class DevNode implements ChainView {
  readonly usdtContract: string;
  readonly faucet: string;
  readonly faults = new Faults();
  private readonly ledger = new Ledger();
  private readonly blocks: BlockRecord[] = [];
  private readonly txIndex = new Map<string, { block: number; index: number }>();
  // TaPoS: the last 65536 blocks by the low two bytes of their number.
  private readonly refBlocks = new Map<string, string>();
  private pending: TxResult[] = [];
  private readonly pendingIds = new Set<string>();
  private readonly touched = new Set<string>();
  private adjustments: BalanceSet[] = [];
  /** Broadcasts a delay fault holds back, with the block they go into. */
  private held: Array<{ tx: SignedTx; releaseAt: number; fault: Fault }> = [];
  /** Old states of what a dry run changed, to put back. */
  private journal: Map<string, AccountState> | null = null;
  private forks = 0;
  /** The newest block made final on demand (POST /devnet/solidify); blocks at or below it never change. */
  private solidFloor = 0;
  /** POST /devnet/finality {held: true}: the solidified block when finality stopped; null while it advances. Not kept across a restart. */
  private finalityHeld: number | null = null;
  private readonly log: BlockLog<BlockRecord>;
  private timer: NodeJS.Timeout | null = null;
  private traffic: TrafficSettings = NO_TRAFFIC;

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
    if (options.traffic) this.setTraffic(options.traffic);
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
    return Math.max(finalityAt(this.head().header.number - this.options.solidifiedDepth, this.finalityHeld), this.solidFloor);
  }

  /** The solidified block at which finality is held (POST /devnet/finality), or null while it advances. */
  get finalityHeldAt(): number | null {
    return this.finalityHeld;
  }

  /**
   * Holds finality where it is, or lets it advance again (POST /devnet/finality): as when too few
   * block producers confirm on mainnet, blocks keep coming and none becomes final, so a
   * reorganisation may replace any block above the held one. A test uses it to keep a block it has
   * just seen from turning final before it reorganises it, however busy the machine.
   */
  holdFinality(held: boolean): { held: boolean; solidifiedBlock: number } {
    this.finalityHeld = held ? this.solidNumber() : null;
    return { held, solidifiedBlock: this.solidNumber() };
  }

  /** The newest block made final on demand, 0 when none was. */
  get solidifiedOnDemand(): number {
    return this.solidFloor;
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

  /** Accounts as of the end of block `number` (a lagging replica's view). */
  accountsAt(number: number): AccountView {
    return this.ledger.at(number);
  }

  /** Network-wide resource totals (mainnet's plus the devnet's stakes). */
  network(): NetworkResources {
    return networkResources(this.ledger.stakeTotals());
  }

  /** Free bandwidth used, after recovery up to the head block. */
  freeNetUsed(state: AccountState): bigint {
    return recoveredUsage(state.freeNetUsage, state.freeNetTime, this.now());
  }

  /** The reference-block fields a transaction built now would carry. */
  refHeader(): Omit<RawHeader, 'fee_limit' | 'data'> {
    return refHeaderOf(this.head());
  }

  buildUnsigned(call: ContractCall, feeLimit?: number) {
    return buildTx(call, { ...this.refHeader(), ...(feeLimit ? { fee_limit: feeLimit } : {}) });
  }

  /** A read-only contract call against the head or solidified state. */
  call(contract: string, caller: string, data: string, callValue: bigint, solid: boolean): CallOutcome | null {
    return this.callOn(this.accounts(solid), contract, caller, data, callValue);
  }

  callOn(accounts: AccountView, contract: string, caller: string, data: string, callValue: bigint): CallOutcome | null {
    switch (this.contractAt(contract)) {
      case 'USDT':
        return callUsdt(accounts, contract, caller, data, callValue);
      case 'PAYER':
        return callPayer(accounts, contract, this.usdtContract, caller, data, callValue);
      case 'FAKE_USDT':
        return callFakeToken(contract, caller, data, callValue);
      default:
        return null;
    }
  }

  contractAt(address: string): DevnetContract | null {
    if (address === this.usdtContract) return 'USDT';
    if (address === PAYER_CONTRACT) return 'PAYER';
    if (address === FAKE_USDT_CONTRACT) return 'FAKE_USDT';
    return null;
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

  /**
   * Makes every block up to the head final now, as if DEVNET_SOLIDIFIED_DEPTH blocks had been made
   * on top of them: a test that has seen what must happen before finality need not wait for the
   * depth. A block is made at once and marked in the log (a restart keeps it final); it is the
   * newest solidified block.
   */
  solidify(): { solidifiedBlock: number } {
    const record = this.produceBlock(undefined, true);
    return { solidifiedBlock: record.header.number };
  }

  produceBlock(at?: { timestamp: number; fork: number }, solidified = false): BlockRecord {
    const parent = this.head().header;
    const number = parent.number + 1;
    this.release(number);
    // A block replayed by a reorganisation (`at`) carries its old transactions, traffic included.
    if (!at) this.addTraffic();
    const txs = this.pending;
    const accounts = Object.fromEntries([...this.touched].map((a) => [a, this.ledger.get(a)]));
    const timestamp = at?.timestamp ?? Math.max(Date.now(), parent.timestamp + 1);
    const record: BlockRecord = {
      header: this.header(number, timestamp, parent.blockID, txs, at?.fork),
      txs,
      accounts,
      ...(this.adjustments.length ? { adjustments: this.adjustments } : {}),
      ...(solidified ? { solidified: true as const } : {}),
    };
    this.log.append(record);
    this.pending = [];
    this.pendingIds.clear();
    this.touched.clear();
    this.adjustments = [];
    this.accept(record);
    return record;
  }

  // ---- dev controls --------------------------------------------------------

  /** The traffic each new block gets (POST /devnet/traffic). */
  get trafficSettings(): TrafficSettings {
    return this.traffic;
  }

  /**
   * Fills every block made from now on with `txPerBlock` transactions of the traffic's mix
   * (devnet/traffic.ts); 0 stops it. The traffic accounts are funded the first time, as
   * POST /devnet/set-balance would fund them (kept with the next block, so a restart replays it).
   */
  setTraffic(settings: TrafficSettings): TrafficSettings {
    if (settings.txPerBlock > 0 && this.ledger.get(trafficAccounts[0]!).createTime === null) {
      for (const address of trafficAccounts) this.setBalance({ address, balanceSun: TRAFFIC_FUNDING_SUN, usdtUnits: TRAFFIC_FUNDING_USDT_UNITS });
    }
    this.traffic = { ...settings };
    return this.traffic;
  }

  addFault(spec: FaultSpec): Fault {
    return this.faults.add(spec);
  }

  /** Broadcasts a delay fault holds, with the block each is due in. */
  heldTransactions(): Array<{ txid: string; releaseAt: number; fault: number }> {
    return this.held.map((h) => ({ txid: h.tx.txID, releaseAt: h.releaseAt, fault: h.fault.id }));
  }

  /** Sets an account's TRX and/or USDT as of the next block. TRX above zero activates an address, as a transfer would. */
  setBalance(set: BalanceSet): AccountState {
    this.applyBalance(set);
    this.adjustments.push(set);
    return this.ledger.get(set.address);
  }

  /**
   * Replaces the newest `depth` blocks by blocks with the same numbers and
   * slots holding the same transactions, minus `leaveOut`, with `order`
   * moved to the front. Everything is re-executed on the new branch: a
   * transaction that no longer validates is dropped, as a real fork drops
   * it. Left-out transactions are forgotten (not pending); their sender may
   * broadcast them again while their reference block and expiration allow.
   */
  reorg(request: ReorgRequest): ReorgResult {
    const head = this.head().header.number;
    if ((request.depth === undefined) === (request.fromBlock === undefined)) throw new DevnetInputError('give depth or fromBlock');
    const depth = request.depth ?? head - request.fromBlock! + 1;
    if (!Number.isSafeInteger(depth) || depth < 1) throw new DevnetInputError(`depth must be a whole number of blocks, at least 1 (the head is #${head})`);
    if (this.finalityHeld === null && depth >= this.options.solidifiedDepth) {
      throw new DevnetInputError(`depth must be below the solidified depth (${this.options.solidifiedDepth}): solidified blocks never change`);
    }
    const forkBlock = head - depth;
    if (forkBlock < 1) throw new DevnetInputError(`the chain has only ${head} blocks above genesis; wait for more`);
    if (this.finalityHeld !== null && forkBlock < this.finalityHeld) {
      throw new DevnetInputError(`block #${forkBlock + 1} is solidified (finality is held at #${this.finalityHeld}): solidified blocks never change`);
    }
    if (forkBlock < this.solidFloor) {
      throw new DevnetInputError(`block #${forkBlock + 1} is solidified (POST /devnet/solidify made every block up to #${this.solidFloor} final): solidified blocks never change`);
    }
    const replaced = this.blocks.slice(forkBlock + 1);
    const byId = new Map(replaced.flatMap((b) => b.txs.map((t) => [t.txID, t] as const)));
    const leaveOut = new Set((request.leaveOut ?? []).map((id) => id.toLowerCase()));
    const order = (request.order ?? []).map((id) => id.toLowerCase());
    for (const id of [...leaveOut, ...order]) {
      if (!byId.has(id)) throw new DevnetInputError(`${id} is not in the last ${depth} blocks`);
      if (leaveOut.has(id) && order.includes(id)) throw new DevnetInputError(`${id} cannot be both left out and reordered`);
    }
    if (new Set(order).size !== order.length) throw new DevnetInputError('order lists a transaction twice');
    const moved = new Set(order);
    const pending = this.pending;
    const pendingAdjustments = this.adjustments;
    this.unwind(forkBlock);
    this.pending = [];
    this.pendingIds.clear();
    this.touched.clear();
    this.adjustments = [];
    this.forks++;

    const dropped: ReorgResult['dropped'] = [];
    const reexecute = (old: TxResult) => {
      const tx = signedFrom(old);
      // TaPoS: a transaction whose reference block was replaced cannot be on the new branch.
      if (!this.tapos(tx)) return dropped.push({ txid: old.txID, code: 'TAPOS_ERROR', message: 'Tapos check error.' });
      try {
        this.include(this.execute(tx, old.forced));
      } catch (e) {
        if (!(e instanceof Rejection)) throw e;
        dropped.push({ txid: old.txID, code: e.code, message: e.message });
      }
    };
    const blocks = replaced.map((old, i) => {
      for (const set of old.adjustments ?? []) this.setBalance(set);
      if (i === 0) order.forEach((id) => reexecute(byId.get(id)!));
      old.txs.filter((t) => !leaveOut.has(t.txID) && !moved.has(t.txID)).forEach(reexecute);
      return this.produceBlock({ timestamp: old.header.timestamp, fork: this.forks }).header.blockID;
    });
    for (const set of pendingAdjustments) this.setBalance(set);
    pending.forEach(reexecute);
    return { forkBlock, replaced: replaced.map((b) => b.header.blockID), blocks, leftOut: [...leaveOut], dropped };
  }

  // ---- chain internals -----------------------------------------------------

  private now(): number {
    return this.head().header.timestamp;
  }

  private createGenesis(): void {
    const { faucet, witness, usdtContract } = this.options;
    const now = Date.now();
    const genesis: BlockRecord = {
      header: this.header(0, now, '0'.repeat(64), []),
      txs: [],
      accounts: {
        [this.faucet]: normalize({ balance: param('genesisFaucetSun'), usdt: param('genesisFaucetUsdt'), createTime: now }),
        [this.usdtContract]: normalize({ createTime: now }),
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
    // A block at a height already held comes from a reorganisation (also when replaying the log).
    if (this.blocks.length && number <= this.head().header.number) this.unwind(number - 1);
    this.blocks.push(record);
    this.ledger.commit(number, record.accounts);
    record.txs.forEach((tx, index) => this.txIndex.set(tx.txID, { block: number, index }));
    this.refBlocks.set(refBytes(number), blockID.slice(16, 32));
    this.forks = Math.max(this.forks, record.header.fork ?? 0);
    if (record.solidified) this.solidFloor = number;
  }

  /** Drops every block after `number` with its transactions and state changes. */
  private unwind(number: number): void {
    for (const record of this.blocks.splice(number + 1)) {
      for (const tx of record.txs) this.txIndex.delete(tx.txID);
      const n = record.header.number;
      const older = this.blocks[n - 65_536];
      if (older) this.refBlocks.set(refBytes(n), older.header.blockID.slice(16, 32));
      else this.refBlocks.delete(refBytes(n));
    }
    this.ledger.rollback(number);
  }

  /** The reference block is on this chain (one of the last 65,536 blocks). */
  private tapos(tx: SignedTx): boolean {
    return this.refBlocks.get(tx.header.ref_block_bytes) === tx.header.ref_block_hash;
  }

  private header(number: number, timestamp: number, parentHash: string, txs: TxResult[], fork?: number): BlockHeader {
    const witness = hex41(this.options.witness.address);
    const txTrieRoot = txs.length ? sha256Hex(Buffer.from(txs.map((t) => t.txID).join(''), 'hex')) : '0'.repeat(64);
    const hash = sha256Hex(utf8(JSON.stringify({ number, timestamp, parentHash, txTrieRoot, witness, ...(fork ? { fork } : {}) })));
    const blockID = number.toString(16).padStart(16, '0') + hash.slice(16);
    const witnessSignature = utils.crypto.ECKeySign(utils.code.hexStr2byteArray(hash), utils.code.hexStr2byteArray(this.options.witness.privateKey));
    return { number, timestamp, parentHash, txTrieRoot, witness, blockID, witnessSignature, ...(fork ? { fork } : {}) };
  }

  // The checks of java-tron's Wallet.broadcastTransaction and Manager.processTransaction, in their order.
  private admit(tx: SignedTx): void {
    if (this.pendingIds.has(tx.txID) || this.held.some((h) => h.tx.txID === tx.txID)) throw new Rejection('DUP_TRANSACTION_ERROR', 'Transaction already exists.');
    if (!tx.signature.length) throw new Rejection('SIGERROR', 'Validate signature error: miss sig or contract');
    for (const sig of tx.signature) {
      if (sig.length !== 130) throw new Rejection('SIGERROR', `Validate signature error: Signature size is ${sig.length / 2}`);
    }
    const headTime = this.now();
    if (tx.header.expiration < headTime + this.options.blockMs) throw new Rejection('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    const owner = tx.call.owner;
    for (const sig of tx.signature) {
      const signer = recoverSigner(tx.txID, sig);
      if (signer !== owner) {
        throw new Rejection('SIGERROR', `Validate signature error: ${sig} is signed by ${signer ? base58(signer) : 'nobody'} but it is not contained of permission.`);
      }
    }
    if (!this.tapos(tx)) throw new Rejection('TAPOS_ERROR', 'Tapos check error.');
    if (tx.header.expiration > headTime + Number(param('maxExpirationMs'))) throw new Rejection('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
    if (this.txIndex.has(tx.txID)) throw new Rejection('DUP_TRANSACTION_ERROR', 'Dup transaction.');

    const fault = this.faults.match(tx.call);
    if (!fault) return this.include(this.execute(tx));
    // A faulted broadcast is still validated: the node answers as it would, then misbehaves.
    if (fault.kind === 'fail') this.include(this.execute(tx, fault.result));
    else this.dryRun(tx);
    if (fault.kind === 'refuse') {
      this.faults.hit(fault, tx.txID);
      throw new Rejection(fault.code, fault.message);
    }
    if (fault.kind === 'delay') this.held.push({ tx, releaseAt: this.head().header.number + 1 + fault.blocks, fault });
    this.faults.hit(fault, tx.txID);
  }

  /** Held broadcasts due in block `number` join it, executed against the state they meet there. */
  private release(number: number): void {
    const due = this.held.filter((h) => h.releaseAt <= number);
    if (!due.length) return;
    this.held = this.held.filter((h) => h.releaseAt > number);
    for (const { tx } of due) {
      if (tx.header.expiration < this.now() || this.txIndex.has(tx.txID) || this.pendingIds.has(tx.txID) || !this.tapos(tx)) continue;
      try {
        this.include(this.execute(tx));
      } catch (e) {
        // No longer valid (spent, expired...): a real node drops it from its pool too.
        if (!(e instanceof Rejection)) throw e;
      }
    }
  }

  /** This block's traffic, executed against the head state like any accepted transaction (never broadcast). */
  private addTraffic(): void {
    if (this.traffic.txPerBlock <= 0) return;
    const ref = this.refHeader();
    let n = 0;
    for (const call of trafficCalls(this.traffic, this.usdtContract, (a) => this.ledger.get(a).usdt)) {
      // A distinct creation time for each keeps two equal calls apart (the txID hashes raw_data).
      const header = { ...ref, timestamp: ref.timestamp + n++, ...(call.type === 'TriggerSmartContract' ? { fee_limit: TRAFFIC_FEE_LIMIT_SUN } : {}) };
      const tx = selfSigned(call, header, standInSignature());
      if (this.pendingIds.has(tx.txID) || this.txIndex.has(tx.txID)) continue;
      try {
        this.include(this.execute(tx));
      } catch (e) {
        if (!(e instanceof Rejection)) throw e;
      }
    }
  }

  private include(result: TxResult): void {
    this.pending.push(result);
    this.pendingIds.add(result.txID);
  }

  private execute(tx: SignedTx, forced?: FailResult): TxResult {
    const call = tx.call;
    switch (call.type) {
      case 'TransferContract':
        return this.transfer(tx, call);
      case 'TriggerSmartContract':
        return this.trigger(tx, call, forced);
      default:
        return this.stake(tx, call);
    }
  }

  /** Validates and executes without keeping any effect. */
  private dryRun(tx: SignedTx): void {
    this.journal = new Map();
    const journal = this.journal;
    try {
      this.execute(tx);
    } finally {
      this.journal = null;
      for (const [address, state] of journal) this.ledger.set(address, state);
    }
  }

  private applyBalance(set: BalanceSet): void {
    const state = this.ledger.get(set.address);
    if (set.balanceSun !== undefined) {
      state.balance = set.balanceSun;
      if (state.createTime === null && set.balanceSun > 0n) state.createTime = this.now();
    }
    if (set.usdtUnits !== undefined) state.usdt = set.usdtUnits;
    if (set.usdtFrozen !== undefined) state.usdtFrozen = set.usdtFrozen;
    this.save(set.address, state);
  }

  private ownerAccount(owner: string): AccountState {
    const state = this.ledger.get(owner);
    if (state.createTime === null) throw new Rejection('CONTRACT_VALIDATE_ERROR', `Contract validate error : account [${base58(owner)}] does not exist`);
    return state;
  }

  /**
   * Charges bandwidth the way BandwidthProcessor.consume does; mutates `state`.
   * Its order: staked bandwidth, then the free 600, then burning — staked
   * first, as java-tron's consume() calls useAccountNet before useFreeNet.
   */
  private chargeBandwidth(state: AccountState, tx: SignedTx, createsAccount: boolean): { netUsage: bigint; netFee: bigint } {
    const bytes = tx.bytes + param('resultBytesPerContract');
    const burn = (fee: bigint) => {
      if (state.balance < fee) throw new Rejection('BANDWITH_ERROR', 'Account resource insufficient error.');
      state.balance -= fee;
      return { netUsage: 0n, netFee: fee };
    };
    const now = this.now();
    const stakedLimit = netLimit(state, this.network());
    const stakedUsed = netUsed(state, now);
    const takeStaked = (cost: bigint) => {
      if (stakedUsed + cost > stakedLimit) return false;
      state.netUsage = stakedUsed + cost;
      state.netTime = now;
      return true;
    };
    if (createsAccount) {
      const cost = bytes * param('createAccountBandwidthRate');
      return takeStaked(cost) ? { netUsage: cost, netFee: 0n } : burn(param('createAccountFeeSun'));
    }
    if (takeStaked(bytes)) return { netUsage: bytes, netFee: 0n };
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
    if (this.contractAt(call.to)) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Cannot transfer TRX to a smartContract.');
    const systemFee = createsAccount ? param('createAccountSystemFeeSun') : 0n;
    if (owner.balance < call.amount + systemFee) {
      throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Validate TransferContract error, balance is not sufficient.');
    }
    owner.balance -= call.amount + systemFee;
    recipient.balance += call.amount;
    if (createsAccount) recipient.createTime = this.now();
    this.save(call.owner, owner);
    this.save(call.to, recipient);
    return { ...this.base(tx), contractRet: 'SUCCESS', fee: systemFee + net.netFee, ...net, energy: null, contractResult: '', contractAddress: null, logs: [], failure: null };
  }

  /**
   * A USDT call. Energy as java-tron's VM bills it: the limit is
   * min(staked energy left + balance / price, fee_limit / price); staked
   * energy is used first, the rest burned at the energy price. A fault can
   * force the receipt: OUT_OF_ENERGY uses up the whole limit, REVERT burns
   * the energy a reverting USDT call uses.
   */
  private trigger(tx: SignedTx, call: Extract<ContractCall, { type: 'TriggerSmartContract' }>, forced?: FailResult): TxResult {
    const owner = this.ownerAccount(call.owner);
    if (!this.contractAt(call.contract)) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : No contract or not a smart contract');
    // java-tron's VMUtils.validateForSmartContract: the call value must be in the caller's balance.
    if (call.callValue > owner.balance) throw new Rejection('CONTRACT_VALIDATE_ERROR', 'Contract validate error : Validate InternalTransfer error, balance is not sufficient.');
    const feeLimit = BigInt(tx.header.fee_limit ?? 0);
    if (feeLimit < 0n || feeLimit > param('maxFeeLimitSun')) {
      throw new Rejection('CONTRACT_VALIDATE_ERROR', `Contract validate error : feeLimit must be >= 0 and <= ${param('maxFeeLimitSun')}`);
    }
    const net = this.chargeBandwidth(owner, tx, false);
    const outcome = forced === 'REVERT' ? revertOutcome() : this.callOn(this.ledger, call.contract, call.owner, call.data, call.callValue)!;
    const price = param('energyFeeSun');
    const now = this.now();
    const stakedLeft = (() => {
      const left = energyLimit(owner, this.network()) - energyUsed(owner, now);
      return left > 0n ? left : 0n;
    })();
    // The call value is not there to pay for energy (java-tron's getAccountEnergyLimitWithFixRatio).
    const fromBalance = (owner.balance - call.callValue) / price;
    const byFeeLimit = feeLimit / price;
    const energyLimitForCall = stakedLeft + fromBalance < byFeeLimit ? stakedLeft + fromBalance : byFeeLimit;
    let contractRet: ContractRet = 'SUCCESS';
    let energyUsedTotal = outcome.energy;
    let failure: string | null = null;
    if (forced === 'OUT_OF_ENERGY' || outcome.energy > energyLimitForCall) {
      contractRet = 'OUT_OF_ENERGY';
      energyUsedTotal = energyLimitForCall;
      const short = outcome.energy > energyLimitForCall ? outcome.energy - energyLimitForCall : 1n;
      failure = `Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[${energyLimitForCall}], curOpEnergy[${short}], usedEnergy[${energyLimitForCall}]`;
    } else if (!outcome.ok) {
      contractRet = 'REVERT';
      failure = 'REVERT opcode executed';
    }
    const fromStake = energyUsedTotal < stakedLeft ? energyUsedTotal : stakedLeft;
    if (fromStake > 0n) {
      owner.energyUsage = energyUsed(owner, now) + fromStake;
      owner.energyTime = now;
    }
    const energyFee = (energyUsedTotal - fromStake) * price;
    owner.balance -= energyFee;
    this.save(call.owner, owner);
    const succeeded = contractRet === 'SUCCESS';
    const internal = (outcome.internal ?? []).map((c) => (succeeded ? c : { ...c, rejected: true }));
    if (succeeded) this.moveCallValue(call.owner, call.contract, call.callValue, internal);
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
      energy: { usageTotal: energyUsedTotal, fee: energyFee, ...(fromStake > 0n ? { usage: fromStake } : {}) },
      contractResult: contractRet === 'OUT_OF_ENERGY' ? '' : outcome.returnData,
      contractAddress: call.contract,
      logs: succeeded ? outcome.logs : [],
      failure,
      ...(internal.length ? { internal } : {}),
      ...(forced ? { forced } : {}),
    };
  }

  /**
   * A successful call's TRX: the call value from the caller to the contract, then each internal call
   * not rejected that carries TRX from its contract to its recipient (creating the recipient's
   * account, as the TVM does). A rejected one moves nothing: its TRX stays with the contract.
   */
  private moveCallValue(caller: string, contract: string, callValue: bigint, internal: InternalCall[]): void {
    const move = (from: string, to: string, amount: bigint) => {
      const sender = this.ledger.get(from);
      sender.balance -= amount;
      this.save(from, sender);
      const receiver = this.ledger.get(to);
      receiver.balance += amount;
      if (receiver.createTime === null) receiver.createTime = this.now();
      this.save(to, receiver);
    };
    if (callValue > 0n) move(caller, contract, callValue);
    for (const c of internal) if (!c.rejected && c.callValue > 0n) move(c.from, c.to, c.callValue);
  }

  /** Stake 2.0 system contracts, validated with java-tron's actuator messages. */
  private stake(tx: SignedTx, call: Exclude<ContractCall, { type: 'TransferContract' | 'TriggerSmartContract' }>): TxResult {
    const owner = this.ownerAccount(call.owner);
    const net = this.chargeBandwidth(owner, tx, false);
    const now = this.now();
    const energy = (r: Resource) => r === 'ENERGY';
    let withdrawn = 0n;
    switch (call.type) {
      case 'FreezeBalanceV2Contract': {
        if (call.amount <= 0n) throw validate('frozenBalance must be positive');
        if (call.amount < TRX) throw validate('frozenBalance must be more than 1TRX');
        if (call.amount > owner.balance) throw validate('frozenBalance must be less than accountBalance');
        owner.balance -= call.amount;
        if (energy(call.resource)) owner.frozenEnergy += call.amount;
        else owner.frozenBandwidth += call.amount;
        this.save(call.owner, owner);
        break;
      }
      case 'UnfreezeBalanceV2Contract': {
        const frozen = energy(call.resource) ? owner.frozenEnergy : owner.frozenBandwidth;
        if (frozen <= 0n) throw validate(energy(call.resource) ? 'no frozenBalance(Energy)' : 'no frozenBalance(BANDWIDTH)');
        if (call.amount <= 0n || call.amount > frozen) throw validate(`Invalid unfreeze_balance, [${call.amount}] is error`);
        if (owner.unfrozen.filter((u) => u.expireTime > now).length >= Number(param('unfreezeMaxTimes'))) {
          throw validate('Invalid unfreeze operation, unfreezing times is over limit');
        }
        // java-tron pays out what has already expired first (unfreezeExpire), and reports it as the
        // receipt's withdraw_expire_amount.
        withdrawn = owner.unfrozen.filter((u) => u.expireTime <= now).reduce((sum, u) => sum + u.amount, 0n);
        owner.balance += withdrawn;
        owner.unfrozen = owner.unfrozen.filter((u) => u.expireTime > now);
        if (energy(call.resource)) owner.frozenEnergy -= call.amount;
        else owner.frozenBandwidth -= call.amount;
        owner.unfrozen.push({ resource: call.resource, amount: call.amount, expireTime: now + Number(param('unfreezeDelayDays')) * 86_400_000 });
        this.save(call.owner, owner);
        break;
      }
      case 'WithdrawExpireUnfreezeContract': {
        const expired = owner.unfrozen.filter((u) => u.expireTime <= now).reduce((sum, u) => sum + u.amount, 0n);
        if (expired <= 0n) throw validate('no unFreeze balance to withdraw ');
        owner.balance += expired;
        withdrawn = expired;
        owner.unfrozen = owner.unfrozen.filter((u) => u.expireTime > now);
        this.save(call.owner, owner);
        break;
      }
      case 'DelegateResourceContract': {
        if (call.amount < TRX) throw validate('delegateBalance must be more than 1TRX');
        if (canDelegate(owner, call.resource, this.network(), now) < call.amount) {
          throw validate(`delegateBalance must be less than available ${energy(call.resource) ? 'FreezeEnergyV2' : 'FreezeBandwidthV2'} balance`);
        }
        if (call.receiver === call.owner) throw validate('receiverAddress must not be the same as ownerAddress');
        const receiver = this.ledger.get(call.receiver);
        if (receiver.createTime === null) throw validate(`Account[${call.receiver}] not exists`);
        let expire = 0;
        if (call.lock) {
          const period = call.lockPeriod === 0n ? param('defaultDelegateLockPeriod') : call.lockPeriod;
          const max = param('maxDelegateLockPeriod');
          if (period < 0n || period > max) throw validate(`The lock period of delegate resource cannot be less than 0 and cannot exceed ${max}!`);
          const previous = owner.delegations[delegationKey(call.receiver, true)];
          const remain = previous ? (energy(call.resource) ? previous.energyExpire : previous.bandwidthExpire) - now : 0;
          if (Number(period) * 3000 < remain) {
            const name = energy(call.resource) ? 'ENERGY' : 'BANDWIDTH';
            throw validate(`The lock period for ${name} this time cannot be less than the remaining time[${remain}ms] of the last lock period for ${name}!`);
          }
          // Lock periods count 3-second mainnet slots whatever the devnet's block interval.
          expire = now + Number(period) * 3000;
        }
        if (this.contractAt(call.receiver)) throw validate('Do not allow delegate resources to contract addresses');
        const key = delegationKey(call.receiver, call.lock);
        const d: Delegation = owner.delegations[key] ?? { to: call.receiver, lock: call.lock, bandwidth: 0n, energy: 0n, bandwidthExpire: 0, energyExpire: 0 };
        if (energy(call.resource)) {
          d.energy += call.amount;
          d.energyExpire = expire;
          owner.frozenEnergy -= call.amount;
          owner.delegatedEnergy += call.amount;
          receiver.acquiredEnergy += call.amount;
        } else {
          d.bandwidth += call.amount;
          d.bandwidthExpire = expire;
          owner.frozenBandwidth -= call.amount;
          owner.delegatedBandwidth += call.amount;
          receiver.acquiredBandwidth += call.amount;
        }
        owner.delegations[key] = d;
        if (!receiver.delegators.includes(call.owner)) receiver.delegators.push(call.owner);
        this.save(call.owner, owner);
        this.save(call.receiver, receiver);
        break;
      }
      case 'UnDelegateResourceContract': {
        if (call.receiver === call.owner) throw validate('receiverAddress must not be the same as ownerAddress');
        const unlocked = owner.delegations[delegationKey(call.receiver, false)];
        const locked = owner.delegations[delegationKey(call.receiver, true)];
        if (!unlocked && !locked) throw validate('delegated Resource does not exist');
        if (call.amount <= 0n) throw validate('unDelegateBalance must be more than 0 TRX');
        const field = energy(call.resource) ? 'energy' : 'bandwidth';
        const expireField = energy(call.resource) ? 'energyExpire' : 'bandwidthExpire';
        const available = (unlocked?.[field] ?? 0n) + (locked && locked[expireField] < now ? locked[field] : 0n);
        if (available < call.amount) {
          throw validate(
            energy(call.resource)
              ? `insufficient delegateFrozenBalance(Energy), request=${call.amount}, unlock_balance=${available}`
              : `insufficient delegatedFrozenBalance(BANDWIDTH), request=${call.amount}, unlock_balance=${available}`,
          );
        }
        // Expired locks become unlocked first, as unLockExpireResource does.
        if (locked && locked[expireField] < now && locked[field] > 0n) {
          const target = owner.delegations[delegationKey(call.receiver, false)] ?? { to: call.receiver, lock: false, bandwidth: 0n, energy: 0n, bandwidthExpire: 0, energyExpire: 0 };
          target[field] += locked[field];
          locked[field] = 0n;
          owner.delegations[delegationKey(call.receiver, false)] = target;
        }
        const target = owner.delegations[delegationKey(call.receiver, false)]!;
        target[field] -= call.amount;
        for (const lock of [false, true]) {
          const d = owner.delegations[delegationKey(call.receiver, lock)];
          if (d && d.energy === 0n && d.bandwidth === 0n) delete owner.delegations[delegationKey(call.receiver, lock)];
        }
        const receiver = this.ledger.get(call.receiver);
        // The receiver's usage moves back with the stake, in proportion (java-tron's unDelegateIncrease).
        if (energy(call.resource)) {
          const share = receiver.frozenEnergy + receiver.acquiredEnergy;
          const used = energyUsed(receiver, now);
          const moved = share > 0n ? (used * call.amount) / share : 0n;
          receiver.acquiredEnergy -= call.amount;
          receiver.energyUsage = used - moved;
          receiver.energyTime = now;
          owner.energyUsage = energyUsed(owner, now) + moved;
          owner.energyTime = now;
          owner.delegatedEnergy -= call.amount;
          owner.frozenEnergy += call.amount;
        } else {
          const share = receiver.frozenBandwidth + receiver.acquiredBandwidth;
          const used = netUsed(receiver, now);
          const moved = share > 0n ? (used * call.amount) / share : 0n;
          receiver.acquiredBandwidth -= call.amount;
          receiver.netUsage = used - moved;
          receiver.netTime = now;
          owner.netUsage = netUsed(owner, now) + moved;
          owner.netTime = now;
          owner.delegatedBandwidth -= call.amount;
          owner.frozenBandwidth += call.amount;
        }
        if (!owner.delegations[delegationKey(call.receiver, false)] && !owner.delegations[delegationKey(call.receiver, true)]) {
          receiver.delegators = receiver.delegators.filter((a) => a !== call.owner);
        }
        this.save(call.owner, owner);
        this.save(call.receiver, receiver);
        break;
      }
    }
    return { ...this.base(tx), contractRet: 'SUCCESS', fee: net.netFee, ...net, energy: null, contractResult: '', contractAddress: null, logs: [], failure: null, ...(withdrawn > 0n ? { withdrawExpireAmount: withdrawn } : {}) };
  }

  private base(tx: SignedTx): Pick<TxResult, 'txID' | 'rawData' | 'rawDataHex' | 'signature'> {
    return { txID: tx.txID, rawData: tx.rawData, rawDataHex: tx.rawDataHex, signature: tx.signature };
  }

  private save(address: string, state: AccountState): void {
    if (this.journal && !this.journal.has(address)) this.journal.set(address, this.ledger.get(address));
    this.ledger.set(address, state);
    this.touched.add(address);
  }
}

/**
 * The node at the end of block `head - lag`: a replica that has not caught
 * up. It relays broadcasts to the head node, as a lagging full node
 * forwards them to the network.
 */
export class LaggingView implements ChainView {
  constructor(
    private readonly node: DevNode,
    private readonly lag: () => number,
  ) {}

  get usdtContract(): string {
    return this.node.usdtContract;
  }

  get faucet(): string {
    return this.node.faucet;
  }

  contractAt(address: string): DevnetContract | null {
    return this.node.contractAt(address);
  }

  private tip(): number {
    return Math.max(1, this.node.head().header.number - this.lag());
  }

  head(): BlockRecord {
    return this.node.block(this.tip())!;
  }

  solidNumber(): number {
    return Math.max(finalityAt(this.tip() - this.node.solidifiedDepth, this.node.finalityHeldAt), Math.min(this.tip(), this.node.solidifiedOnDemand));
  }

  block(number: number): BlockRecord | undefined {
    return number <= this.tip() ? this.node.block(number) : undefined;
  }

  blockById(id: string): BlockRecord | undefined {
    const record = this.node.blockById(id);
    return record && record.header.number <= this.tip() ? record : undefined;
  }

  findTx(txID: string): { tx: TxResult; block: BlockRecord } | undefined {
    const found = this.node.findTx(txID);
    return found && found.block.header.number <= this.tip() ? found : undefined;
  }

  accounts(solid: boolean): AccountView {
    if (this.lag() === 0) return this.node.accounts(solid);
    return this.node.accountsAt(solid ? this.solidNumber() : this.tip());
  }

  network(): NetworkResources {
    return this.node.network();
  }

  freeNetUsed(state: AccountState): bigint {
    return recoveredUsage(state.freeNetUsage, state.freeNetTime, this.head().header.timestamp);
  }

  buildUnsigned(call: ContractCall, feeLimit?: number) {
    return buildTx(call, { ...refHeaderOf(this.head()), ...(feeLimit ? { fee_limit: feeLimit } : {}) });
  }

  call(contract: string, caller: string, data: string, callValue: bigint, solid: boolean): CallOutcome | null {
    return this.node.callOn(this.accounts(solid), contract, caller, data, callValue);
  }

  broadcast(body: unknown): BroadcastReply {
    return this.node.broadcast(body);
  }
}

function refHeaderOf(head: BlockRecord): Omit<RawHeader, 'fee_limit' | 'data'> {
  const { number, blockID, timestamp } = head.header;
  return { ref_block_bytes: refBytes(number), ref_block_hash: blockID.slice(16, 32), expiration: timestamp + 60_000, timestamp: Date.now() };
}

/** A committed transaction as a signed one again, for re-execution on a new branch. */
function signedFrom(tx: TxResult): SignedTx {
  return parseSignedTx(JSON.parse(toNodeJson({ raw_data: tx.rawData, signature: tx.signature }, true)));
}

function refBytes(number: number): string {
  return (number & 0xffff).toString(16).padStart(4, '0');
}
