import { TronWeb } from 'tronweb';
import type { z } from 'zod';
import type { ChainConfig } from '@/lib/config';
import { batchCost, budgetOf, transactionBandwidth, transferCost, type ResourceBudget } from './costs';
import { ChainError, ChainResponseError, ChainUnavailableError, isConnectionReset, TxRejectedError } from './errors';
import {
  accountReply,
  acquiredReply,
  accountResourceReply,
  blockHeaderReply,
  blockReceiptsReply,
  blockReply,
  broadcastReply,
  canDelegateReply,
  chainParametersReply,
  delegatedResourceReply,
  delegationIndexReply,
  stakeReply,
  constantCallReply,
  contractReply,
  estimateEnergyReply,
  txInfoReply,
  type TxInfoReply,
  type BlockReply,
} from './replies';
import { admitRequest, endpointOf, notePaused, pausedUntil, throttleWaitMs } from './meter';
import { blockTransfers, needsReceipts } from './transfers';
import type {
  AccountResources,
  BalanceAt,
  BatchCost,
  BroadcastResult,
  Chain,
  ChainBlock,
  ChainParameters,
  Head,
  NodeReceipt,
  RefBlock,
  Resource,
  ResourceOp,
  Stake,
  SignedTransaction,
  SignedTransfer,
  TransactionStatus,
  Transfer,
  TransferCost,
  TransferRequest,
} from './types';

const CONCURRENCY = 8;
const MAX_RANGE = 100;
/**
 * How many of the newest blocks read at the head are kept for the scanner of solidified blocks
 * (`finalFromHeadReads`): the blocks between its cursor and the node's head, about finality's depth
 * (19 blocks on mainnet) and SCAN_IDLE_BLOCKS more. At ten times mainnet's traffic a kept block's
 * transfers are about a megabyte.
 */
const HEAD_READS_KEPT = 48;
/** How many addresses known to be accounts in solidified state are kept (isActivated): merchants' wallets and payout targets, mostly. */
const FINAL_ACCOUNTS_KEPT = 10_000;
/**
 * How long after this process read a head block a send may be built on it instead of on a head read
 * for it (refHeader): its expiration counted from that block's time, and its reference that block
 * when the send relies on nothing newer. A mainnet block's time: the head scanner reads each block as
 * it is due, so a send's build finds one read within a block (issue 37: every send asked the node for
 * the head, five requests a paid USDT invoice). A block that old is as good a reference as the newest
 * (TaPoS takes any of the last 65,536; a reorganisation that replaces it kills the send, proven dead
 * and rebuilt, as it would one built on the newest block it replaces), and the expiration is earlier
 * by at most that much.
 */
export const SEND_HEAD_FRESH_MS = 3_000;
/**
 * Taking final blocks from the head's reads costs a request of its own (the solidified head's
 * header), and a second when they cannot be taken (the blocks are then read as before): worth it
 * only for blocks whose reading again would cost more than that. Mainnet's hold about 300 transfers
 * each; a quiet chain's (the devnet's default run, the tests') almost none, and are read again.
 */
const HEAD_READS_WORTH_TRANSFERS = 100;
/** How far back findUsdtHolder looks for USDT transfers, and how many of their parties it tries. */
const HOLDER_SEARCH_BLOCKS = 3;
const HOLDER_SEARCH_CANDIDATES = 10;

/**
 * Waits before each new attempt of an idempotent call whose connection was reset: a few short ones,
 * enough for a fresh connection, not long enough to hold a loop (then ChainUnavailableError as before).
 */
const RESET_RETRY_DELAYS_MS = [25, 100, 300];

/** Whether a call may be sent again after its connection was reset: reads, and broadcasts (idempotent by txid). */
type Retry = 'idempotent' | 'once';

/** Runs an idempotent call, sending it again after each reset connection while RESET_RETRY_DELAYS_MS lasts; other errors as they are. */
async function retryReset<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const delay = RESET_RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !isConnectionReset(e)) throw e;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

type RefHeader = { ref_block_bytes: string; ref_block_hash: string; expiration: number; timestamp: number };

function isHttpError(e: unknown): e is { isAxiosError: true; message: string; response?: { status?: number } } {
  return typeof e === 'object' && e !== null && 'isAxiosError' in e && e.isAxiosError === true;
}

function toChainError(what: string, e: unknown): ChainError {
  if (e instanceof ChainError) return e;
  if (isHttpError(e)) return new ChainUnavailableError(`${what}: ${e.message}`, e.response?.status ?? null, { cause: e });
  return new ChainResponseError(`${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

function decodeMessage(message: string | undefined): string {
  if (!message) return '';
  return /^([0-9a-f]{2})+$/i.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
}

/** A transaction's status from its receipt, final when its block is at or below `solidifiedNumber`. */
function statusOf(info: TxInfoReply, solidifiedNumber: number): TransactionStatus {
  const failed = info.result === 'FAILED' || (info.receipt.result !== undefined && info.receipt.result !== 'SUCCESS');
  const solidified = info.blockNumber <= solidifiedNumber;
  return {
    status: failed ? 'failed' : solidified ? 'confirmed' : 'pending',
    blockNumber: info.blockNumber,
    solidified,
    expired: false,
    feeSun: info.fee,
    energyUsed: info.receipt.energy_usage_total,
    energyFeeSun: info.receipt.energy_fee,
    bandwidthUsed: info.receipt.net_usage,
    bandwidthFeeSun: info.receipt.net_fee,
    withdrawnSun: info.withdraw_expire_amount,
    result: info.receipt.result ?? null,
    message: info.resMessage ? decodeMessage(info.resMessage) : null,
  };
}

function safeNumber(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} is out of range`);
  return Number(value);
}

function senderOf(privateKey: string): string {
  const address = TronWeb.address.fromPrivateKey(privateKey.replace(/^0x/, ''));
  if (!address) throw new TypeError('invalid private key');
  return address;
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** What meterProvider uses of an axios instance. */
interface AxiosInterceptors {
  interceptors: {
    request: { use(onRequest: <R extends { url?: string }>(request: R) => Promise<R>): void };
    response: { use(onAnswer: undefined, onError: (error: unknown) => Promise<never>): void };
  };
}

/**
 * Every request of a tronweb provider counted by endpoint, spaced under the per-second budget, and
 * held back while the node has asked us to wait (lib/chain/meter.ts): the one place all of tronweb's
 * calls to the node pass, whichever method made them.
 */
function meterProvider(provider: TronWeb['fullNode'], maxPerSecond: number | null): void {
  const origin = new URL(provider.host).origin;
  // tronweb's type for its axios instance leaves the interceptors out; they are axios' own.
  const instance = provider.instance as unknown as AxiosInterceptors;
  instance.interceptors.request.use(async (request) => {
    const now = Date.now();
    const until = pausedUntil(origin, now);
    if (until !== null) throw new ChainUnavailableError(`the node asked for no requests until ${new Date(until).toISOString()} (its rate limit); none sent`, 429);
    const wait = admitRequest(origin, endpointOf(request.url ?? ''), maxPerSecond, now);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return request;
  });
  instance.interceptors.response.use(undefined, (error: unknown) => {
    const response = isHttpError(error) ? (error as { response?: { status?: number; headers?: Record<string, unknown>; data?: unknown } }).response : undefined;
    const retryAfter = response?.headers?.['retry-after'];
    const now = Date.now();
    const wait = throttleWaitMs(response?.status, typeof retryAfter === 'string' ? retryAfter : undefined, response?.data, now);
    if (wait !== null) notePaused(origin, wait, now);
    return Promise.reject(error as Error);
  });
}

/** The chain layer over tronweb and a Tron full node's HTTP API (TronGrid, a private node, or the devnet). */
export class TronChain implements Chain {
  readonly usdtContract: string;
  private readonly tronWeb: TronWeb;
  /** The read of the chain parameters in flight, shared by callers that ask meanwhile; never kept after it answers. */
  private parametersInFlight: Promise<ChainParameters> | null = null;
  /** The newest blocks read at the head, by number (HEAD_READS_KEPT of them): what a read of them once final would give, while their ids stand. */
  private readonly headReads = new Map<number, ChainBlock>();
  /** Addresses seen to be accounts in solidified state (isActivated), at most FINAL_ACCOUNTS_KEPT. */
  private readonly finalAccounts = new Set<string>();
  /** The newest head block read here, any way (its header, or a scanner's read), and when (`seenAt`, ms here): what an estimate's transaction is built on (sizeHeader), and a send's while it is fresh (refHeader). */
  private newestHead: (RefBlock & { timestamp: number; seenAt: number }) | null = null;

  constructor(private readonly config: ChainConfig) {
    this.usdtContract = config.usdtContract;
    this.tronWeb = new TronWeb({
      fullHost: config.fullNodeUrl,
      ...(config.apiKey ? { headers: { 'TRON-PRO-API-KEY': config.apiKey } } : {}),
    });
    for (const provider of [this.tronWeb.fullNode, this.tronWeb.solidityNode]) meterProvider(provider, config.maxRequestsPerSecond ?? null);
  }

  async getBlockNumber(): Promise<number> {
    return (await this.getHead()).number;
  }

  async getHead(): Promise<Head> {
    const { number, timestamp } = (await this.header(false)).block_header.raw_data;
    return { number, timestamp };
  }

  async getConfirmedBlockNumber(): Promise<number> {
    return (await this.getConfirmedHead()).number;
  }

  async getConfirmedHead(): Promise<Head> {
    const { number, timestamp } = (await this.header(true)).block_header.raw_data;
    return { number, timestamp };
  }

  async getBlockTransfers(n: number): Promise<Transfer[] | null> {
    const raw = await this.request('getblockbynum', 'wallet/getblockbynum', { num: n });
    if (!raw || typeof raw !== 'object' || !Object.keys(raw).length) return null;
    return (await this.transfersOf(this.parse('getblockbynum', blockReply, raw))).transfers;
  }

  async getBlockRangeTransfers(from: number, to: number): Promise<{ transfers: Transfer[]; lastBlock: number | null; lastBlockTime: number | null }> {
    const blocks = await this.getBlocks(from, to);
    const last = blocks.at(-1);
    return { transfers: blocks.flatMap((b) => b.transfers), lastBlock: last?.number ?? null, lastBlockTime: last?.timestamp ?? null };
  }

  async getBlocks(from: number, to: number, at: BalanceAt = 'head'): Promise<ChainBlock[]> {
    if (to < from || to - from + 1 > MAX_RANGE) throw new RangeError(`a range holds 1..${MAX_RANGE} blocks`);
    const solid = at === 'solidified';
    if (solid) {
      const known = await this.finalFromHeadReads(from, to);
      if (known) return known;
    }
    const path = solid ? 'walletsolidity/getblockbylimitnext' : 'wallet/getblockbylimitnext';
    const raw = await this.request(solid ? path : 'getblockbylimitnext', path, { startNum: from, endNum: to + 1 }, at);
    const list = (raw as { block?: unknown[] } | null)?.block ?? [];
    const blocks = list.map((b) => this.parse('getblockbylimitnext', blockReply, b)).sort((a, b) => a.block_header.raw_data.number - b.block_header.raw_data.number);
    const contiguous: BlockReply[] = [];
    for (const block of blocks) {
      if (block.block_header.raw_data.number !== from + contiguous.length) break;
      contiguous.push(block);
    }
    const perBlock = await mapLimit(contiguous, CONCURRENCY, (b) => this.transfersOf(b));
    const read = contiguous.map((b, i) => ({
      number: b.block_header.raw_data.number,
      id: b.blockID,
      parentId: b.block_header.raw_data.parentHash,
      timestamp: b.block_header.raw_data.timestamp,
      transfers: perBlock[i]!.transfers,
      receipts: perBlock[i]!.receipts,
      executed: b.transactions.filter((tx) => tx.ret?.[0]?.contractRet === 'SUCCESS').map((tx) => tx.txID),
    }));
    if (!solid) {
      this.keepHeadReads(read);
      const newest = read.at(-1);
      if (newest) this.sawHead({ number: newest.number, id: newest.id, timestamp: newest.timestamp });
    }
    return read;
  }

  /** Keeps blocks read at the head (a newer read of a number replaces the older: a reorganisation), the newest HEAD_READS_KEPT by number. */
  private keepHeadReads(blocks: ChainBlock[]): void {
    for (const b of blocks) this.headReads.set(b.number, b);
    const newest = Math.max(...this.headReads.keys());
    for (const n of this.headReads.keys()) if (n <= newest - HEAD_READS_KEPT) this.headReads.delete(n);
  }

  /**
   * The solidified blocks from `from` to `to` (as far as the node's solidified head) from the blocks
   * read at the head, after one small request: the solidified head's header (issue 37: at ten times
   * mainnet's traffic each block is 3.5 MB, its receipts 1.7 MB, read and checked twice, once by
   * each scanner). Kept blocks from `from` to the solidified head, each the parent of the next, the
   * last with the solidified head's id: each is then the final block of its number (a block's id
   * commits to its parent's id, and so to every block below it), with the same transactions and
   * the same receipts as a read of it now (the receipts are the full node's, as for any read).
   * null when not known that way: the head was not read here (another worker scans it, or the
   * head scan is off), not far enough, or a kept block was replaced by a reorganisation; and not
   * tried for blocks too small to be worth it (HEAD_READS_WORTH_TRANSFERS). The blocks are then read
   * from the solidity interface, as before. Under mainnet's traffic an idle deployment asked its
   * node 2.85 times a block, 2.35 with this (the receipts of every final block were read again).
   */
  private async finalFromHeadReads(from: number, to: number): Promise<ChainBlock[] | null> {
    if (!this.headReads.has(from)) return null;
    let transfers = 0;
    for (const [n, block] of this.headReads) if (n >= from) transfers += block.transfers.length;
    if (transfers < HEAD_READS_WORTH_TRANSFERS) return null;
    const solidHead = await this.header(true);
    const top = solidHead.block_header.raw_data.number;
    // Nothing final after the cursor yet: a read would answer no block either.
    if (top < from) return [];
    const run: ChainBlock[] = [];
    for (let n = from; n <= top; n++) {
      const block = this.headReads.get(n);
      if (!block || (run.length > 0 && block.parentId !== run.at(-1)!.id)) return null;
      run.push(block);
    }
    if (run.at(-1)!.id !== solidHead.blockID) return null;
    return run.slice(0, to - from + 1);
  }

  async getSolidifiedBlockId(n: number): Promise<string | null> {
    const path = 'walletsolidity/getblock';
    const raw = await this.request(path, path, { id_or_num: String(n), detail: false }, 'solidified');
    if (!raw || typeof raw !== 'object' || !Object.keys(raw).length) return null;
    const block = this.parse(path, blockHeaderReply, raw);
    return block.block_header.raw_data.number === n ? block.blockID : null;
  }

  async getTrxBalance(address: string, at: BalanceAt = 'head'): Promise<bigint> {
    const raw = await this.account(address, at);
    return this.parse('getaccount', accountReply, raw).balance;
  }

  async getUsdtBalance(address: string, at: BalanceAt = 'head'): Promise<bigint> {
    return this.usdtView('balanceOf', address, at);
  }

  /** A view of the USDT contract taking one address (balanceOf, isBlackListed), read as one uint256 word. */
  private async usdtView(name: 'balanceOf' | 'isBlackListed', address: string, at: BalanceAt = 'head'): Promise<bigint> {
    const builder = this.tronWeb.transactionBuilder;
    const call = at === 'solidified' ? builder.triggerConfirmedConstantContract.bind(builder) : builder.triggerConstantContract.bind(builder);
    const reply = await this.guard(name, () => call(this.usdtContract, `${name}(address)`, {}, [{ type: 'address', value: address }], address), 'idempotent');
    return BigInt('0x' + (this.parse(name, constantCallReply, reply).constant_result[0] || '0'));
  }

  async findUsdtHolder(minUnits: bigint): Promise<string | null> {
    const holds = async (address: string) => (await this.getUsdtBalance(address)) >= minUnits;
    // The deployer first: one call, and on the devnet it is the faucet that mints the token.
    const contract = await this.request('getcontract', 'wallet/getcontract', { value: this.hex(this.usdtContract) });
    const origin = (contract as { origin_address?: unknown } | null)?.origin_address;
    if (typeof origin === 'string' && TronWeb.isAddress(origin)) {
      const deployer = TronWeb.address.fromHex(origin);
      if (await holds(deployer)) return deployer;
    }
    // Then whoever moved USDT lately: on mainnet every block has many such transfers.
    const head = await this.getBlockNumber();
    const from = Math.max(0, head - HOLDER_SEARCH_BLOCKS + 1);
    const { transfers } = await this.getBlockRangeTransfers(from, head);
    const parties = [...new Set(transfers.filter((t) => t.token === 'USDT' && t.success).reverse().flatMap((t) => [t.to, t.from]))];
    for (const address of parties.slice(0, HOLDER_SEARCH_CANDIDATES)) {
      if (await holds(address)) return address;
    }
    return null;
  }

  async getAccountResources(address: string): Promise<AccountResources> {
    const raw = await this.request('getaccountresource', 'wallet/getaccountresource', { address: this.hex(address) });
    const r = this.parse('getaccountresource', accountResourceReply, raw);
    return {
      totalEnergyLimit: r.TotalEnergyLimit,
      totalEnergyWeight: r.TotalEnergyWeight,
      totalNetLimit: r.TotalNetLimit,
      totalNetWeight: r.TotalNetWeight,
      freeBandwidthLimit: r.freeNetLimit,
      freeBandwidthUsed: r.freeNetUsed,
      stakedBandwidthLimit: r.NetLimit,
      stakedBandwidthUsed: r.NetUsed,
      energyLimit: r.EnergyLimit,
      energyUsed: r.EnergyUsed,
    };
  }

  async getStake(address: string): Promise<Stake> {
    const raw = await this.request('getaccount', 'wallet/getaccount', { address: this.hex(address) });
    const r = this.parse('getaccount', stakeReply, raw);
    const frozen = (resource: Resource) => r.frozenV2.filter((f) => (f.type ?? 'BANDWIDTH') === resource).reduce((sum, f) => sum + f.amount, 0n);
    return {
      frozenSun: { ENERGY: frozen('ENERGY'), BANDWIDTH: frozen('BANDWIDTH') },
      delegatedSun: { ENERGY: r.account_resource.delegated_frozenV2_balance_for_energy, BANDWIDTH: r.delegated_frozenV2_balance_for_bandwidth },
      unfreezingSun: r.unfrozenV2.reduce((sum, u) => sum + u.unfreeze_amount, 0n),
      withdrawableSun: r.unfrozenV2.filter((u) => u.unfreeze_expire_time <= BigInt(Date.now())).reduce((sum, u) => sum + u.unfreeze_amount, 0n),
    };
  }

  async getDelegatableSun(owner: string, resource: Resource): Promise<bigint> {
    const raw = await this.request('getcandelegatedmaxsize', 'wallet/getcandelegatedmaxsize', { owner_address: this.hex(owner), type: resource === 'ENERGY' ? 1 : 0 });
    return this.parse('getcandelegatedmaxsize', canDelegateReply, raw).max_size;
  }

  async getDelegatedSun(owner: string, receiver: string): Promise<Record<Resource, bigint>> {
    const raw = await this.request('getdelegatedresourcev2', 'wallet/getdelegatedresourcev2', { fromAddress: this.hex(owner), toAddress: this.hex(receiver) });
    // Only unlocked delegations: the service never locks one, so it can always take it back at once.
    const unlocked = this.parse('getdelegatedresourcev2', delegatedResourceReply, raw).delegatedResource.filter((d) => d.expire_time_for_energy === 0n && d.expire_time_for_bandwidth === 0n);
    return {
      ENERGY: unlocked.reduce((sum, d) => sum + d.frozen_balance_for_energy, 0n),
      BANDWIDTH: unlocked.reduce((sum, d) => sum + d.frozen_balance_for_bandwidth, 0n),
    };
  }

  async getDelegationReceivers(owner: string): Promise<string[]> {
    const raw = await this.request('getdelegatedresourceaccountindexv2', 'wallet/getdelegatedresourceaccountindexv2', { value: this.hex(owner) });
    return this.parse('getdelegatedresourceaccountindexv2', delegationIndexReply, raw).toAccounts.map((a) => TronWeb.address.fromHex(a));
  }

  async getBlockIdHolding(n: number, txId: string): Promise<string | null> {
    const raw = await this.request('getblock', 'wallet/getblock', { id_or_num: String(n), detail: true });
    if (!raw || typeof raw !== 'object' || !Object.keys(raw).length) return null;
    const block = this.parse('getblock', blockReply, raw);
    return block.block_header.raw_data.number === n && block.transactions.some((t) => t.txID === txId) ? block.blockID : null;
  }

  async buildSignedResourceOp(privateKey: string, op: ResourceOp, refBlock?: RefBlock): Promise<SignedTransfer> {
    const key = privateKey.replace(/^0x/, '');
    const owner = senderOf(key);
    const header = await this.refHeader(refBlock);
    const b = this.tronWeb.transactionBuilder;
    const amount = op.kind === 'withdraw' ? 0 : safeNumber(op.amountSun, 'amountSun');
    const options = { blockHeader: header };
    const tx = await this.guard<unknown>(op.kind, () => {
      switch (op.kind) {
        case 'stake':
          return b.freezeBalanceV2(amount, op.resource, owner, options);
        case 'unstake':
          return b.unfreezeBalanceV2(amount, op.resource, owner, options);
        case 'delegate':
          return b.delegateResource(amount, op.receiver, op.resource, owner, false, undefined, options);
        case 'undelegate':
          return b.undelegateResource(amount, op.receiver, op.resource, owner, options);
        case 'withdraw':
          return b.withdrawExpireUnfreeze(owner, options);
      }
      // Built locally (the reference block is given): nothing is sent, so a retry is harmless.
    }, 'idempotent');
    return this.sign(tx as Parameters<TronWeb['trx']['sign']>[0] & object, key, header);
  }

  async isContract(address: string): Promise<boolean> {
    const raw = await this.request('getcontract', 'wallet/getcontract', { value: this.hex(address) });
    return this.parse('getcontract', contractReply, raw).contract_address !== undefined;
  }

  async isUsdtFrozen(address: string): Promise<boolean> {
    return (await this.usdtView('isBlackListed', address)) !== 0n;
  }

  /** wallet/getaccount as of the head, or walletsolidity/getaccount as of the solidified head. */
  private account(address: string, at: BalanceAt): Promise<unknown> {
    const payload = { address: this.hex(address) };
    return this.request('getaccount', at === 'solidified' ? 'walletsolidity/getaccount' : 'wallet/getaccount', payload, at);
  }

  async getDelegatedInSun(address: string, resource: Resource, at: BalanceAt = 'head'): Promise<bigint> {
    const raw = await this.account(address, at);
    const account = this.parse('getaccount', acquiredReply, raw);
    return resource === 'ENERGY' ? account.account_resource.acquired_delegated_frozenV2_balance_for_energy : account.acquired_delegated_frozenV2_balance_for_bandwidth;
  }

  /**
   * An address seen to be an account in solidified state is answered from memory, at the head too:
   * java-tron never deletes an account, and no reorganisation reaches a solidified block. Each
   * forward asked twice a round whether the merchant's wallet is an account (bindingBlock, at the
   * head and solidified), and each TRX estimate once (issue 37). An address not seen so is asked
   * every time: at the head it may be one only on a branch that a reorganisation replaces.
   */
  async isActivated(address: string, at: BalanceAt = 'head'): Promise<boolean> {
    if (this.finalAccounts.has(address)) return true;
    const raw = await this.account(address, at);
    const activated = this.parse('getaccount', accountReply, raw).address !== undefined;
    if (activated && at === 'solidified') {
      this.finalAccounts.add(address);
      // The oldest forgotten first (a Set keeps insertion order): one deposit address per invoice would grow it for ever.
      if (this.finalAccounts.size > FINAL_ACCOUNTS_KEPT) this.finalAccounts.delete(this.finalAccounts.values().next().value!);
    }
    return activated;
  }

  /**
   * Read from the node on every call, never from a cache: every caller sizes a send (gas, fee_limit,
   * a payout's quote), and a price kept from before a committee change makes each send run
   * OUT_OF_ENERGY and burn its gas (issue 22, case 2). Callers that ask while a read is in flight
   * share it: its answer is still newer than their call.
   */
  getChainParameters(): Promise<ChainParameters> {
    if (!this.parametersInFlight) {
      const read = this.fetchChainParameters();
      this.parametersInFlight = read;
      const done = () => {
        if (this.parametersInFlight === read) this.parametersInFlight = null;
      };
      read.then(done, done);
    }
    return this.parametersInFlight;
  }

  async estimateTransfer(transfer: TransferRequest): Promise<TransferCost> {
    return (await this.estimateBatch([transfer])).transfers[0]!;
  }

  async estimateBatch(transfers: TransferRequest[]): Promise<BatchCost> {
    const params = await this.getChainParameters();
    const senders = [...new Set(transfers.map((t) => t.from))];
    const trxRecipients = [...new Set(transfers.filter((t) => t.token === 'TRX').map((t) => t.to))];
    const [budgets, activated, header] = await Promise.all([
      mapLimit(senders, CONCURRENCY, async (s) => [s, budgetOf(await this.getAccountResources(s))] as const),
      mapLimit(trxRecipients, CONCURRENCY, async (r) => [r, await this.isActivated(r)] as const),
      this.sizeHeader(),
    ]);
    const needs = await mapLimit(transfers, CONCURRENCY, (t) => this.resourceNeed(t, header, params));
    const budgetBySender = new Map<string, ResourceBudget>(budgets);
    const activeAccounts = new Set(activated.filter(([, a]) => a).map(([r]) => r));
    const costs = transfers.map((t, i) => {
      const createsAccount = t.token === 'TRX' && !activeAccounts.has(t.to);
      if (createsAccount) activeAccounts.add(t.to);
      return transferCost({ ...needs[i]!, createsAccount }, budgetBySender.get(t.from)!, params);
    });
    return batchCost(costs);
  }

  async buildSignedTrxTransfer(privateKey: string, to: string, amountSun: bigint, refBlock?: RefBlock): Promise<SignedTransfer> {
    const key = privateKey.replace(/^0x/, '');
    const header = await this.refHeader(refBlock);
    const tx = await this.unsignedTrx(senderOf(key), to, amountSun, header);
    return this.sign(tx, key, header);
  }

  async buildSignedUsdtTransfer(privateKey: string, to: string, units: bigint, feeLimitSun: bigint, refBlock?: RefBlock): Promise<SignedTransfer> {
    const key = privateKey.replace(/^0x/, '');
    const header = await this.refHeader(refBlock);
    const tx = await this.unsignedUsdt(senderOf(key), to, units, feeLimitSun, header);
    return this.sign(tx, key, header);
  }

  async broadcast(signedTx: SignedTransaction): Promise<BroadcastResult> {
    // Sending the same signed bytes again is safe: the txid is the transaction's identity, and a copy
    // the node already took is answered DUP_TRANSACTION_ERROR, which counts as accepted below.
    const raw = await this.guard('broadcasttransaction', () => this.tronWeb.trx.sendRawTransaction(signedTx), 'idempotent');
    const reply = this.parse('broadcasttransaction', broadcastReply, raw);
    if (reply.Error) throw new ChainResponseError(`broadcasttransaction: ${reply.Error}`);
    if (reply.result) return { txId: signedTx.txID, alreadyKnown: false };
    if (reply.code === 'DUP_TRANSACTION_ERROR') return { txId: signedTx.txID, alreadyKnown: true };
    throw new TxRejectedError(reply.code ?? 'UNKNOWN', decodeMessage(reply.message), signedTx.txID);
  }

  async getTransactionStatus(txId: string, expiresAt?: number, solidifiedHead?: Head): Promise<TransactionStatus> {
    // The solidified head is read first (or was, by the caller that passes it): if it is already
    // past the expiration, a lookup that then finds nothing is final.
    const solid = solidifiedHead ?? (await this.header(true)).block_header.raw_data;
    const raw = await this.request('gettransactioninfobyid', 'wallet/gettransactioninfobyid', { value: txId });
    const none = { feeSun: 0n, energyUsed: 0n, energyFeeSun: 0n, bandwidthUsed: 0n, bandwidthFeeSun: 0n, withdrawnSun: 0n, result: null, message: null };
    if (!raw || typeof raw !== 'object' || !Object.keys(raw).length) {
      return { status: 'unknown', blockNumber: null, solidified: false, expired: expiresAt !== undefined && solid.timestamp >= expiresAt, ...none };
    }
    return statusOf(this.parse('gettransactioninfobyid', txInfoReply, raw), solid.number);
  }

  receiptStatus(receipt: unknown): TransactionStatus {
    const info = this.parse('gettransactioninfobyblocknum', txInfoReply, receipt);
    // Read in a solidified block: final whatever the head now.
    return statusOf(info, info.blockNumber);
  }

  private async transfersOf(block: BlockReply): Promise<{ transfers: Transfer[]; receipts: NodeReceipt[] }> {
    if (!needsReceipts(block)) return { transfers: blockTransfers(block, [], this.usdtContract), receipts: [] };
    const num = block.block_header.raw_data.number;
    const raw = await this.request('gettransactioninfobyblocknum', 'wallet/gettransactioninfobyblocknum', { num });
    const receipts = this.parse('gettransactioninfobyblocknum', blockReceiptsReply, raw);
    // The parse checked each has an id; kept is only what a send's booking reads (not the logs: at ten times mainnet's
    // traffic a block's receipts are 1.7 MB, and the head's are kept for the solidified scan, HEAD_READS_KEPT).
    const kept = (raw as Record<string, unknown>[]).map((r) => ({ id: r.id as string, blockNumber: r.blockNumber, fee: r.fee, receipt: r.receipt, result: r.result, resMessage: r.resMessage, withdraw_expire_amount: r.withdraw_expire_amount }));
    return { transfers: blockTransfers(block, receipts, this.usdtContract), receipts: kept };
  }

  private async fetchChainParameters(): Promise<ChainParameters> {
    const list = this.parse('getchainparameters', chainParametersReply, await this.guard('getchainparameters', () => this.tronWeb.trx.getChainParameters(), 'idempotent'));
    const values = new Map(list.map((p) => [p.key, p.value]));
    const get = (key: string) => {
      const value = values.get(key);
      if (value === undefined) throw new ChainResponseError(`getchainparameters: the node does not report ${key}`);
      return value;
    };
    return {
      energyFeeSun: get('getEnergyFee'),
      bandwidthFeeSun: get('getTransactionFee'),
      freeBandwidthBytes: get('getFreeNetLimit'),
      createAccountFeeSun: get('getCreateAccountFee'),
      createAccountSystemFeeSun: get('getCreateNewAccountFeeInSystemContract'),
      createAccountBandwidthRate: get('getCreateNewAccountBandwidthRate'),
      maxFeeLimitSun: get('getMaxFeeLimit'),
    };
  }

  /** Energy from the node and the bandwidth of the transaction as it would be built. */
  private async resourceNeed(t: TransferRequest, header: RefHeader, params: ChainParameters): Promise<{ energy: bigint; bandwidth: bigint }> {
    if (t.token === 'TRX') {
      const tx = await this.unsignedTrx(t.from, t.to, t.amount, header);
      return { energy: 0n, bandwidth: transactionBandwidth(tx.raw_data_hex) };
    }
    const energy = await this.usdtEnergy(t.from, t.to, t.amount);
    const tx = await this.unsignedUsdt(t.from, t.to, t.amount, t.feeLimitSun ?? energy * params.energyFeeSun, header);
    return { energy, bandwidth: transactionBandwidth(tx.raw_data_hex) };
  }

  private async usdtEnergy(from: string, to: string, units: bigint): Promise<bigint> {
    const args = [
      { type: 'address', value: to },
      { type: 'uint256', value: units.toString() },
    ];
    try {
      const reply = await retryReset(() => this.tronWeb.transactionBuilder.estimateEnergy(this.usdtContract, 'transfer(address,uint256)', {}, args, from));
      return this.parse('estimateenergy', estimateEnergyReply, reply).energy_required;
    } catch (e) {
      // Nodes without vm.estimateEnergy refuse the call; triggerconstantcontract runs it instead.
      if (!(e instanceof Error && /does not support estimate energy/i.test(e.message))) throw toChainError('estimateenergy', e);
    }
    const reply = await this.guard(
      'triggerconstantcontract',
      () => this.tronWeb.transactionBuilder.triggerConstantContract(this.usdtContract, 'transfer(address,uint256)', {}, args, from),
      'idempotent',
    );
    const parsed = this.parse('triggerconstantcontract', constantCallReply, reply);
    return parsed.energy_used + parsed.energy_penalty;
  }

  private unsignedTrx(from: string, to: string, amountSun: bigint, header: RefHeader) {
    return this.tronWeb.transactionBuilder.sendTrx(to, safeNumber(amountSun, 'amountSun'), from, { blockHeader: header });
  }

  private async unsignedUsdt(from: string, to: string, units: bigint, feeLimitSun: bigint, header: RefHeader) {
    if (units <= 0n) throw new RangeError('units must be positive');
    const { transaction } = await this.tronWeb.transactionBuilder.triggerSmartContract(
      this.usdtContract,
      'transfer(address,uint256)',
      { feeLimit: safeNumber(feeLimitSun, 'feeLimitSun'), callValue: 0, txLocal: true, blockHeader: header },
      [
        { type: 'address', value: to },
        { type: 'uint256', value: units.toString() },
      ],
      from,
    );
    return transaction;
  }

  private async sign(tx: Parameters<TronWeb['trx']['sign']>[0] & object, privateKey: string, header: RefHeader): Promise<SignedTransfer> {
    const signedTx = (await this.tronWeb.trx.sign(tx, privateKey)) as SignedTransaction;
    return { txId: signedTx.txID, signedTx, expiresAt: header.expiration };
  }

  /**
   * Reference block and expiration for transactions built now (what tronweb would fetch itself, but
   * with errors we can classify): the head block, or `refBlock`. The expiration always counts from
   * the head block's time, which is what a node checks it against. The head is the newest read here
   * while it is SEND_HEAD_FRESH_MS fresh and not below `refBlock`, else read now.
   */
  private async refHeader(refBlock?: RefBlock): Promise<RefHeader> {
    const seen = this.newestHead;
    if (seen && Date.now() - seen.seenAt < SEND_HEAD_FRESH_MS && (!refBlock || refBlock.number <= seen.number)) return this.headerOn(seen, refBlock);
    const { blockID, block_header } = await this.header(false);
    const { number, timestamp } = block_header.raw_data;
    return this.headerOn({ number, id: blockID, timestamp }, refBlock);
  }

  /**
   * What an estimate builds its transaction on, only to weigh it (its bytes are its bandwidth): the
   * newest head block read here, else one read now. Any block gives the same size: the reference is
   * two bytes and eight of its id, and the expiration and timestamp, milliseconds, are six bytes each
   * from 1971 to 2109 (issue 37: each estimate asked the node for the head, a third of the
   * `wallet/getblock` requests of a paid USDT invoice). A transaction that is sent is built on a
   * head at most SEND_HEAD_FRESH_MS old (refHeader).
   */
  private async sizeHeader(): Promise<RefHeader> {
    return this.newestHead ? this.headerOn(this.newestHead) : this.refHeader();
  }

  private sawHead(head: RefBlock & { timestamp: number }): void {
    if (!this.newestHead || head.number >= this.newestHead.number) this.newestHead = { ...head, seenAt: Date.now() };
  }

  private headerOn(head: RefBlock & { timestamp: number }, refBlock?: RefBlock): RefHeader {
    const { number, id, timestamp } = head;
    const ref = refBlock ?? { number, id };
    return {
      ref_block_bytes: ref.number.toString(16).slice(-4).padStart(4, '0'),
      ref_block_hash: ref.id.slice(16, 32),
      expiration: timestamp + this.config.txExpirationMs,
      timestamp,
    };
  }

  private async header(solid: boolean) {
    const path = solid ? 'walletsolidity/getblock' : 'wallet/getblock';
    const raw = await this.request(path, path, { detail: false }, solid ? 'solidified' : 'head');
    const header = this.parse(path, blockHeaderReply, raw);
    // The node's head now, even below one read before (a reorganisation to a shorter branch): a send built on it references a block there.
    if (!solid) this.newestHead = { number: header.block_header.raw_data.number, id: header.blockID, timestamp: header.block_header.raw_data.timestamp, seenAt: Date.now() };
    return header;
  }

  /**
   * A read of the node's HTTP API (every path it is called with is one): of the full node's head
   * chain, or (`solidified`) of its solidity interface, whose `walletsolidity/` paths answer as of
   * the solidified head.
   */
  private request(what: string, path: string, payload: Record<string, unknown>, at: BalanceAt = 'head'): Promise<unknown> {
    const node = at === 'solidified' ? this.tronWeb.solidityNode : this.tronWeb.fullNode;
    return this.guard(what, () => node.request(path, payload, 'post'), 'idempotent');
  }

  /**
   * Runs one call to the node, its failure as a ChainError. An idempotent one whose connection was
   * reset is sent again a few times first (RESET_RETRY_DELAYS_MS); every call must say which it is.
   */
  private async guard<T>(what: string, fn: () => Promise<T>, retry: Retry): Promise<T> {
    try {
      return retry === 'idempotent' ? await retryReset(fn) : await fn();
    } catch (e) {
      throw toChainError(what, e);
    }
  }

  private parse<S extends z.ZodType>(what: string, schema: S, raw: unknown): z.infer<S> {
    const result = schema.safeParse(raw);
    if (!result.success) throw new ChainResponseError(`${what}: unexpected reply ${JSON.stringify(raw)?.slice(0, 300)}`);
    return result.data;
  }

  private hex(address: string): string {
    if (!TronWeb.isAddress(address)) throw new TypeError(`not a Tron address: ${address}`);
    return TronWeb.address.toHex(address);
  }
}
