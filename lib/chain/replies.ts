import { z } from 'zod';

/**
 * The node replies the chain layer reads, validated so that a malformed or
 * unexpected answer fails loudly instead of turning into a wrong amount.
 * Proto3 leaves zero values out, hence the defaults.
 */

const int64 = z.union([z.number().int(), z.string().regex(/^-?\d+$/)]).transform((v) => BigInt(v));
const opt64 = int64.optional().transform((v) => v ?? 0n);

export const blockHeaderReply = z.object({
  blockID: z.string(),
  block_header: z.object({ raw_data: z.object({ number: z.number().int().default(0), timestamp: z.number().int(), parentHash: z.string().default('') }) }),
});

const contractValue = z.object({
  owner_address: z.string(),
  to_address: z.string().optional(),
  amount: opt64,
  contract_address: z.string().optional(),
  data: z.string().optional(),
});

const blockTxReply = z.object({
  txID: z.string(),
  ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
  raw_data: z.object({
    contract: z.array(z.object({ type: z.string(), parameter: z.object({ value: contractValue }) })),
    expiration: z.number().int().optional(),
  }),
});

export const blockReply = blockHeaderReply.extend({ transactions: z.array(blockTxReply).default([]) });
export type BlockReply = z.infer<typeof blockReply>;

export const txInfoReply = z.object({
  id: z.string(),
  fee: opt64,
  blockNumber: z.number().int().default(0),
  receipt: z
    .object({
      energy_usage_total: opt64,
      energy_fee: opt64,
      net_usage: opt64,
      net_fee: opt64,
      result: z.string().optional(),
    })
    .default({ energy_usage_total: 0n, energy_fee: 0n, net_usage: 0n, net_fee: 0n }),
  log: z.array(z.object({ address: z.string(), topics: z.array(z.string()).default([]), data: z.string().default('') })).default([]),
  /**
   * Calls a contract made in turn (java-tron's InternalTransaction): TRX a contract sends is only here.
   * `callValueInfo` has one entry per value sent (a TRC-10 token's carries `tokenId`; `{}` when nothing
   * is sent); `rejected` is true when that call, or the whole transaction, reverted.
   */
  internal_transactions: z
    .array(
      z.object({
        caller_address: z.string(),
        transferTo_address: z.string(),
        callValueInfo: z.array(z.object({ callValue: opt64, tokenId: z.string().optional() })).default([]),
        rejected: z.boolean().default(false),
      }),
    )
    .default([]),
  /** Expired unstaked TRX a WithdrawExpireUnfreeze (or an UnfreezeBalanceV2, paying out what expired first) returned to the balance. */
  withdraw_expire_amount: opt64,
  result: z.string().optional(),
  resMessage: z.string().optional(),
});
export type TxInfoReply = z.infer<typeof txInfoReply>;
/**
 * A block's receipts as the scanner reads them (`gettransactioninfobyblocknum`): only what
 * blockTransfers looks at, so the fees and energy of every transaction in the block are not
 * checked and turned into BigInts for nothing. Under ten times mainnet's traffic (3,000
 * transactions a block, issue 37) that took this check from about 40 to 14 ms a block, read
 * twice a block (head and solidified). One send's receipt is still read whole (txInfoReply).
 */
const blockReceiptReply = txInfoReply
  .pick({ id: true, log: true, internal_transactions: true, result: true })
  .extend({ receipt: z.object({ result: z.string().optional() }).default({}) });
export type BlockReceipt = z.infer<typeof blockReceiptReply>;
export const blockReceiptsReply = z.array(blockReceiptReply);

export const accountReply = z.object({ address: z.string().optional(), balance: opt64 });

/** wallet/getcontract: the contract's descriptor, or `{}` when no contract lives at the address (java-tron's GetContractServlet). */
export const contractReply = z.object({ contract_address: z.string().min(1).optional() });

export const accountResourceReply = z.object({
  freeNetLimit: opt64,
  freeNetUsed: opt64,
  NetLimit: opt64,
  NetUsed: opt64,
  EnergyLimit: opt64,
  EnergyUsed: opt64,
  TotalEnergyLimit: opt64,
  TotalEnergyWeight: opt64,
  TotalNetLimit: opt64,
  TotalNetWeight: opt64,
});

/** wallet/getaccount's Stake 2.0 fields (proto3: absent when zero; the bandwidth entry of frozenV2 has no type). */
export const stakeReply = z.object({
  frozenV2: z.array(z.object({ type: z.string().optional(), amount: opt64 })).default([]),
  unfrozenV2: z.array(z.object({ type: z.string().optional(), unfreeze_amount: opt64, unfreeze_expire_time: opt64 })).default([]),
  delegated_frozenV2_balance_for_bandwidth: opt64,
  account_resource: z.object({ delegated_frozenV2_balance_for_energy: opt64 }).default({ delegated_frozenV2_balance_for_energy: 0n }),
});

/** wallet/getaccount's stake lent to the account by others (proto3: absent when zero). */
export const acquiredReply = z.object({
  acquired_delegated_frozenV2_balance_for_bandwidth: opt64,
  account_resource: z.object({ acquired_delegated_frozenV2_balance_for_energy: opt64 }).default({ acquired_delegated_frozenV2_balance_for_energy: 0n }),
});

export const canDelegateReply = z.object({ max_size: opt64 });

export const delegatedResourceReply = z.object({
  delegatedResource: z
    .array(z.object({ frozen_balance_for_bandwidth: opt64, frozen_balance_for_energy: opt64, expire_time_for_bandwidth: opt64, expire_time_for_energy: opt64 }))
    .default([]),
});

export const delegationIndexReply = z.object({ toAccounts: z.array(z.string()).default([]) });

export const chainParametersReply = z.array(z.object({ key: z.string(), value: opt64 }));

export const constantCallReply = z.object({
  constant_result: z.array(z.string()).min(1),
  energy_used: opt64,
  energy_penalty: opt64,
});

export const estimateEnergyReply = z.object({ energy_required: int64 });

export const broadcastReply = z.object({
  result: z.boolean().optional(),
  code: z.string().optional(),
  txid: z.string().optional(),
  message: z.string().optional(),
  Error: z.string().optional(),
});
