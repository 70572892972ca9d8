/**
 * Every economic rule of the devnet, in one table (docs/devnet.md mirrors it).
 * Values follow Tron mainnet. Entries with a `chainParameter` are served by
 * wallet/getchainparameters under that key, so clients read them instead of
 * hard-coding them; the rest are what a real node gets from executing code
 * (USDT energy) or from protocol constants.
 */
export const PARAMETERS = {
  energyFeeSun: { value: 100n, chainParameter: 'getEnergyFee', doc: 'sun burned per energy unit when the caller has no staked energy' },
  bandwidthFeeSun: { value: 1_000n, chainParameter: 'getTransactionFee', doc: 'sun burned per bandwidth byte not covered by free or staked bandwidth' },
  freeBandwidthBytes: { value: 600n, chainParameter: 'getFreeNetLimit', doc: 'free bandwidth per account, recovering linearly over 24 h' },
  createAccountFeeSun: { value: 100_000n, chainParameter: 'getCreateAccountFee', doc: 'burned instead of bandwidth by a transaction that creates an account' },
  createAccountSystemFeeSun: { value: 1_000_000n, chainParameter: 'getCreateNewAccountFeeInSystemContract', doc: 'paid by a TRX transfer to an address that is not yet an account' },
  createAccountBandwidthRate: { value: 1n, chainParameter: 'getCreateNewAccountBandwidthRate', doc: 'staked bandwidth per byte that replaces the create-account fee' },
  maxFeeLimitSun: { value: 15_000_000_000n, chainParameter: 'getMaxFeeLimit', doc: 'largest fee_limit a contract call may carry' },
  usdtTransferEnergyToHolder: { value: 64_285n, doc: 'energy of USDT transfer() to an address that already holds USDT' },
  usdtTransferEnergyToNewHolder: { value: 130_285n, doc: 'energy of USDT transfer() to an address holding none (zero to non-zero storage)' },
  usdtRevertEnergy: { value: 13_285n, doc: 'energy burned by a USDT call that reverts (e.g. amount above the balance)' },
  usdtViewEnergy: { value: 935n, doc: 'energy of a USDT read (balanceOf, decimals, ...)' },
  resultBytesPerContract: { value: 64n, doc: 'bytes a node adds to a transaction\'s size for its result when charging bandwidth' },
  resourceWindowMs: { value: 86_400_000n, doc: 'window over which used bandwidth recovers' },
  maxExpirationMs: { value: 86_400_000n, doc: 'how far past the head block a transaction\'s expiration may lie' },
  genesisFaucetSun: { value: 1_000_000_000_000_000n, doc: 'TRX of the faucet at genesis (1e9 TRX)' },
  genesisFaucetUsdt: { value: 1_000_000_000_000_000n, doc: 'USDT of the faucet at genesis (1e9 USDT)' },
} as const satisfies Record<string, { value: bigint; chainParameter?: string; doc: string }>;

export type ParameterName = keyof typeof PARAMETERS;

export function param(name: ParameterName): bigint {
  return PARAMETERS[name].value;
}

/** The `chainParameter` rows in wallet/getchainparameters form. */
export function chainParameters(): Array<{ key: string; value: bigint }> {
  return Object.values(PARAMETERS).flatMap((p) => ('chainParameter' in p ? [{ key: p.chainParameter, value: p.value }] : []));
}
