import type { Types } from 'tronweb';
import type { Currency } from '@/lib/money/tokens';

/**
 * The chain as the worker and the API see it. Addresses are base58 (T...);
 * amounts are bigint base units: sun for TRX, 6-decimal units for USDT.
 */
export type BalanceAt = 'head' | 'solidified';

/** A block as the scanners pace their reads by it (lib/chain/pace.ts): its number and timestamp. */
export interface Head {
  number: number;
  /** The block's timestamp (ms), as the chain stamped it. */
  timestamp: number;
}

export interface Chain {
  readonly usdtContract: string;

  /** Head block number (includes blocks that may still be reorganised). */
  getBlockNumber(): Promise<number>;
  /** The head block's number and timestamp (ms): the head scanner paces its reads by it (lib/chain/pace.ts). */
  getHead(): Promise<Head>;
  /** Highest solidified (irreversible) block number. */
  getConfirmedBlockNumber(): Promise<number>;
  /** The highest solidified block's number and timestamp (ms): the scanner of solidified blocks paces its reads by it. */
  getConfirmedHead(): Promise<Head>;
  /** Every TRX transfer and every USDT Transfer in block `n`; null when the node has no such block yet. */
  getBlockTransfers(n: number): Promise<Transfer[] | null>;
  /**
   * The same for blocks `from`..`to` inclusive (at most 100), in block order; stops at the
   * first missing block. `lastBlockTime` is the timestamp (ms) of `lastBlock`.
   */
  getBlockRangeTransfers(from: number, to: number): Promise<{ transfers: Transfer[]; lastBlock: number | null; lastBlockTime: number | null }>;
  /**
   * Blocks `from`..`to` inclusive (at most 100) as the node's head chain holds them now, each with its
   * id, its parent's id and its transfers; stops at the first missing block. Blocks above the
   * solidified head may still be replaced by a reorganisation: compare ids (lib/payments/headScan.ts).
   * A range reaching past the head is answered with the blocks there are: a scanner asks for the
   * blocks after its cursor without asking for the head first (issue 37: one request a block).
   * `at` 'solidified': only solidified (irreversible) blocks, from the node's solidity interface
   * (walletsolidity/getblockbylimitnext), so the range stops at the solidified head.
   */
  getBlocks(from: number, to: number, at?: BalanceAt): Promise<ChainBlock[]>;
  /** The id of block `n` once it is solidified (irreversible); null while it is not, or the node lacks it. */
  getSolidifiedBlockId(n: number): Promise<string | null>;
  /** The id of the block at height `n` of the head chain if that block holds transaction `txId`, else null. */
  getBlockIdHolding(n: number, txId: string): Promise<string | null>;

  /**
   * Balances as of the head (what a wallet shows: a node includes broadcast transfers not yet in
   * a block) or of the highest solidified block (`'solidified'`: only what is final).
   */
  getTrxBalance(address: string, at?: BalanceAt): Promise<bigint>;
  getUsdtBalance(address: string, at?: BalanceAt): Promise<bigint>;
  /**
   * Some address that holds at least `minUnits` USDT now, found from the chain itself
   * (the token contract's deployer, then the parties of the USDT transfers in the
   * latest blocks); null when none is found. Estimates simulate USDT transfers from
   * it, since a transfer() from an address without the tokens reverts.
   */
  findUsdtHolder(minUnits: bigint): Promise<string | null>;
  getAccountResources(address: string): Promise<AccountResources>;
  /**
   * The stake others lent the address for `resource` (sun: `acquired_delegated_frozenV2_balance_for_*`),
   * as of the head or of the solidified head. More at the head than there: a delegation to the address
   * is in a block that is not final yet (a rental provider's, which no send of ours can reference).
   */
  getDelegatedInSun(address: string, resource: Resource, at?: BalanceAt): Promise<bigint>;
  /**
   * Whether the address exists as an account (has received TRX); USDT alone does not activate it. As
   * of the head, or of the solidified head (`'solidified'`): an account at the head and not there was
   * made by a transfer that is not final yet (issue 35, case 2). Once seen to be one in solidified
   * state, it is one for ever (no account is ever deleted): a client may answer that from memory.
   */
  isActivated(address: string, at?: BalanceAt): Promise<boolean>;
  /**
   * Whether a smart contract lives at the address (wallet/getcontract: java-tron answers `{}` for any
   * other address). Money is never sent to one: the node refuses TRX to it for good, and USDT sent to
   * it lands and is lost (issue 34). Throws ChainUnavailableError when the node cannot be asked.
   */
  isContract(address: string): Promise<boolean>;
  /**
   * Whether the USDT contract has frozen the address (Tether's blacklist, `isBlackListed`): its
   * `transfer` requires the sender not to be on it, so nothing can leave a frozen address and a send
   * from it reverts, burning its energy; USDT sent to one can never be moved again (issue 37).
   */
  isUsdtFrozen(address: string): Promise<boolean>;
  /** As the node reports them now (not cached: prices change, and every caller sizes a send with them). */
  getChainParameters(): Promise<ChainParameters>;

  /** Stake 2.0 (docs/energy.md): the TRX an account has staked, in each state. */
  getStake(address: string): Promise<Stake>;
  /** wallet/getcandelegatedmaxsize: stake (sun) `owner` may still delegate of `resource`, after what its own usage occupies. */
  getDelegatableSun(owner: string, resource: Resource): Promise<bigint>;
  /** Unlocked stake (sun) `owner` has delegated to `receiver` now, per resource (wallet/getdelegatedresourcev2). */
  getDelegatedSun(owner: string, receiver: string): Promise<Record<Resource, bigint>>;
  /** Every account `owner` has delegated stake to (wallet/getdelegatedresourceaccountindexv2). */
  getDelegationReceivers(owner: string): Promise<string[]>;

  estimateTransfer(transfer: TransferRequest): Promise<TransferCost>;
  /** Transfers sent in order from their senders: later ones see the free bandwidth the earlier ones used. */
  estimateBatch(transfers: TransferRequest[]): Promise<BatchCost>;

  /**
   * Builds and signs locally; nothing is sent. Store `txId` before calling `broadcast`. The reference
   * block (TaPoS) is the head block, or `refBlock` when given: a transaction that references a block
   * is valid only on a chain that holds that block, so a send made for a payment not yet final
   * references the payment's block and can never execute on a fork without the payment (issue 24).
   */
  buildSignedTrxTransfer(privateKey: string, to: string, amountSun: bigint, refBlock?: RefBlock): Promise<SignedTransfer>;
  buildSignedUsdtTransfer(privateKey: string, to: string, units: bigint, feeLimitSun: bigint, refBlock?: RefBlock): Promise<SignedTransfer>;
  /** Builds and signs a Stake 2.0 transaction locally (freeze, unfreeze, delegate, undelegate); nothing is sent. */
  buildSignedResourceOp(privateKey: string, op: ResourceOp, refBlock?: RefBlock): Promise<SignedTransfer>;
  /** Idempotent: a transaction the node already knows counts as accepted (`alreadyKnown`). Throws TxRejectedError otherwise. */
  broadcast(signedTx: SignedTransaction): Promise<BroadcastResult>;
  /**
   * Where a transaction stands. Pass the `expiresAt` from `SignedTransfer` to learn
   * whether an unknown transaction can still land (`expired: false`) or never will. `solidifiedHead`:
   * a block known final (read from the node's solidity interface before this call, e.g. the
   * scanner's cursor), judged by instead of asking the node for its solidified head (one request
   * fewer; issue 37). An older one than the node's is only more cautious: a send is then called
   * final, or expired, a little later.
   */
  getTransactionStatus(txId: string, expiresAt?: number, solidifiedHead?: Head): Promise<TransactionStatus>;
  /** What `getTransactionStatus` answers of a transaction whose receipt this is, read in a solidified block (`ChainBlock.receipts`). */
  receiptStatus(receipt: unknown): TransactionStatus;
}

export type { Currency };

export interface Transfer {
  txId: string;
  blockNumber: number;
  /** Index of the Transfer event among the transaction's logs; null for TRX transfers and for failed USDT calls. */
  logIndex: number | null;
  /** TRX a contract sent: the index of the internal transaction among the transaction's (issue 37); absent otherwise. */
  internalIndex?: number;
  token: Currency;
  from: string;
  to: string;
  amount: bigint;
  /** False for a USDT transfer() call that reverted or ran out of energy (it moved nothing). */
  success: boolean;
  /** The transaction's expiration (ms since epoch): it can never enter a block after the chain passes it. */
  expiration?: number;
}

/** A block as the head chain holds it (`Chain.getBlocks`). */
export interface ChainBlock {
  number: number;
  id: string;
  parentId: string;
  /** ms since epoch. */
  timestamp: number;
  transfers: Transfer[];
  /**
   * The ids of its transactions that executed (`ret[0].contractRet` SUCCESS, as the block itself
   * says): what the head scanner marks our sends in flight landed by, without asking the node for
   * each one's receipt (lib/payments/headScan.ts, issue 37).
   */
  executed: string[];
  /**
   * Its receipts, where they were read with it (a block with contract calls: every block of mainnet;
   * empty otherwise), each as the node answered it, cut to what a send's booking reads (its fee,
   * resources and result). The scanner of solidified blocks keeps those of our sends in flight, and
   * their follow books them from there (`Chain.receiptStatus`) without asking for each again
   * (lib/payments/scan.ts, issue 37).
   */
  receipts: NodeReceipt[];
}

/** A transaction's receipt as the node answered it (opaque outside the chain layer; read by `Chain.receiptStatus`). */
export interface NodeReceipt {
  id: string;
  [field: string]: unknown;
}

/** A block a transaction is built to reference (TaPoS: `ref_block_bytes`, `ref_block_hash`). */
export interface RefBlock {
  number: number;
  id: string;
}

export type Resource = 'ENERGY' | 'BANDWIDTH';

export type ResourceOp =
  | { kind: 'stake' | 'unstake'; resource: Resource; amountSun: bigint }
  | { kind: 'delegate' | 'undelegate'; resource: Resource; receiver: string; amountSun: bigint }
  | { kind: 'withdraw' };

/** An account's staked TRX (sun): still with it, lent to others, and unstaking (waiting out the unfreeze delay). */
export interface Stake {
  frozenSun: Record<Resource, bigint>;
  delegatedSun: Record<Resource, bigint>;
  unfreezingSun: bigint;
  /** The part of unfreezingSun whose 14 days are over: WithdrawExpireUnfreeze returns it to the balance. */
  withdrawableSun: bigint;
}

export interface AccountResources {
  /** The network's daily totals and the stake they are shared by (TRX): energy per staked TRX = limit / weight. */
  totalEnergyLimit: bigint;
  totalEnergyWeight: bigint;
  totalNetLimit: bigint;
  totalNetWeight: bigint;
  freeBandwidthLimit: bigint;
  freeBandwidthUsed: bigint;
  stakedBandwidthLimit: bigint;
  stakedBandwidthUsed: bigint;
  energyLimit: bigint;
  energyUsed: bigint;
}

/** Read from wallet/getchainparameters. */
export interface ChainParameters {
  /** getEnergyFee: sun per energy unit burned. */
  energyFeeSun: bigint;
  /** getTransactionFee: sun per bandwidth byte burned. */
  bandwidthFeeSun: bigint;
  /** getFreeNetLimit: free bandwidth per account per day. */
  freeBandwidthBytes: bigint;
  /** getCreateAccountFee: burned instead of bandwidth when a transaction creates an account. */
  createAccountFeeSun: bigint;
  /** getCreateNewAccountFeeInSystemContract: paid by a TRX transfer that creates the recipient. */
  createAccountSystemFeeSun: bigint;
  /** getCreateNewAccountBandwidthRate: staked bandwidth per byte that replaces the create-account fee. */
  createAccountBandwidthRate: bigint;
  /** getMaxFeeLimit: the largest fee_limit a contract call may carry. */
  maxFeeLimitSun: bigint;
}

export interface TransferRequest {
  token: Currency;
  /** For USDT the sender must hold `amount`, or the node cannot estimate the call (it would revert). */
  from: string;
  to: string;
  amount: bigint;
  /** The fee_limit a USDT transfer will carry; its encoding changes the size by a byte or two. Default: the estimated energy fee. */
  feeLimitSun?: bigint;
}

export interface TransferCost {
  /** Energy the call needs, from the node's estimate (0 for TRX). */
  energy: bigint;
  /** Bandwidth bytes of the signed transaction. */
  bandwidth: bigint;
  /** The transfer creates the recipient's account (TRX to a new address). */
  createsAccount: boolean;
  /** TRX burned for energy not covered by the sender's staked energy. */
  energyFeeSun: bigint;
  /** TRX burned for bandwidth not covered by free or staked bandwidth. */
  bandwidthFeeSun: bigint;
  /** System fee plus create-account fee when `createsAccount`. */
  activationFeeSun: bigint;
  /** Everything burned; what the node will report as the transaction's fee. */
  totalFeeSun: bigint;
  /**
   * Energy the sender could spend when the estimate read its account (its limit, own stake and lent,
   * less what it used; less what a batch's earlier transfers from it take): what the address holds,
   * as new as the estimate, for a judgment made with it (issue 37).
   */
  senderEnergy: bigint;
  /**
   * The chain's parameters the estimate was made with (read beside it): what a judgment made with it
   * prices the rest at; `energyFeeSun`, the energy price, is what a fee_limit for it pays per unit.
   */
  parameters: ChainParameters;
}

export interface BatchCost {
  transfers: TransferCost[];
  energy: bigint;
  bandwidth: bigint;
  accountsCreated: number;
  energyFeeSun: bigint;
  bandwidthFeeSun: bigint;
  activationFeeSun: bigint;
  totalFeeSun: bigint;
}

/** A signed transaction in the node's JSON form; safe to JSON.stringify and store. */
export type SignedTransaction = Types.SignedTransaction;

export interface SignedTransfer {
  txId: string;
  signedTx: SignedTransaction;
  /** ms since epoch; after this the transaction can no longer enter a block. */
  expiresAt: number;
}

export interface BroadcastResult {
  txId: string;
  /** The node already had it (DUP_TRANSACTION_ERROR): sent before, e.g. by a run that crashed. */
  alreadyKnown: boolean;
}

/**
 * - `pending`: in a block that is not solidified yet, executed successfully so far.
 * - `confirmed`: in a solidified block, succeeded.
 * - `failed`: in a block, but the contract call failed (REVERT, OUT_OF_ENERGY); fees were still burned.
 * - `unknown`: in no block. See `expired` for whether it still can be.
 */
export type TxStatus = 'pending' | 'confirmed' | 'failed' | 'unknown';

export interface TransactionStatus {
  status: TxStatus;
  blockNumber: number | null;
  /** The block is solidified (for `failed`, whether the failure is final). */
  solidified: boolean;
  /** Only for `unknown` with `expiresAt`: the solidified chain is past the expiration, so it will never land. */
  expired: boolean;
  feeSun: bigint;
  energyUsed: bigint;
  energyFeeSun: bigint;
  bandwidthUsed: bigint;
  bandwidthFeeSun: bigint;
  /** Expired unstaked TRX the transaction returned to the sender's balance (receipt's withdraw_expire_amount). */
  withdrawnSun: bigint;
  /** The contract result for calls (SUCCESS, REVERT, OUT_OF_ENERGY, ...); null for TRX transfers. */
  result: string | null;
  /** The node's failure message, decoded. */
  message: string | null;
}
