/**
 * Every economic rule of the devnet, in one table (docs/devnet.md mirrors it).
 * Values follow Tron mainnet. Entries with a `chainParameter` are served by
 * wallet/getchainparameters under that key, so clients read them instead of
 * hard-coding them; the rest are what a real node gets from executing code
 * (USDT energy) or from protocol constants.
 */
const PARAMETERS = {
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
  totalEnergyLimit: { value: 180_000_000_000n, chainParameter: 'getTotalEnergyLimit', doc: 'energy the whole network regenerates per day, shared by energy stake' },
  networkEnergyWeightTrx: { value: 19_000_000_000n, doc: 'TRX staked for energy by the rest of mainnet (about 9.5 energy per staked TRX per day); devnet stakes add to it' },
  totalNetLimit: { value: 43_200_000_000n, chainParameter: 'getTotalNetLimit', doc: 'bandwidth the whole network regenerates per day, shared by bandwidth stake' },
  networkNetWeightTrx: { value: 30_000_000_000n, doc: 'TRX staked for bandwidth by the rest of mainnet (about 1.4 bandwidth per staked TRX per day); devnet stakes add to it' },
  unfreezeDelayDays: { value: 14n, chainParameter: 'getUnfreezeDelayDays', doc: 'days an unstaked amount waits before WithdrawExpireUnfreeze can return it' },
  maxDelegateLockPeriod: { value: 864_000n, chainParameter: 'getMaxDelegateLockPeriod', doc: 'longest delegation lock, in 3-second blocks (30 days)' },
  defaultDelegateLockPeriod: { value: 86_400n, doc: 'lock of a delegation with lock=true and no lock_period, in 3-second blocks (3 days)' },
  unfreezeMaxTimes: { value: 32n, doc: 'unstakes an account may have waiting at once' },
  usdtEnergyFactor: { value: 34_000n, doc: "USDT's dynamic energy factor in 1/10,000 (34,000 = x4.4, the cap mainnet's USDT sits at); the USDT energy rows are at this factor and scale with (10,000 + factor)" },
  genesisFaucetSun: { value: 1_000_000_000_000_000n, doc: 'TRX of the faucet at genesis (1e9 TRX)' },
  genesisFaucetUsdt: { value: 1_000_000_000_000_000n, doc: 'USDT of the faucet at genesis (1e9 USDT)' },
} as const satisfies Record<string, { value: bigint; chainParameter?: string; doc: string }>;

export type ParameterName = keyof typeof PARAMETERS;

/** The factor the USDT energy rows are measured at. */
export const USDT_REFERENCE_FACTOR = PARAMETERS.usdtEnergyFactor.value;

/** Parameters changed at run time (POST /devnet/chain-parameters); per process, not persisted. */
const overrides = new Map<ParameterName, bigint>();

/** The parameters a running devnet lets a test change, as a committee proposal would on mainnet. */
export const MUTABLE_PARAMETERS = ['energyFeeSun', 'bandwidthFeeSun', 'usdtEnergyFactor', 'unfreezeDelayDays', 'networkEnergyWeightTrx'] as const satisfies readonly ParameterName[];
export type MutableParameter = (typeof MUTABLE_PARAMETERS)[number];

export function param(name: ParameterName): bigint {
  return overrides.get(name) ?? PARAMETERS[name].value;
}

const priceChanges: Array<{ name: MutableParameter; at: number; value: bigint }> = [];

export function setParam(name: MutableParameter, value: bigint): void {
  overrides.set(name, value);
  priceChanges.push({ name, at: Date.now(), value });
}

/** wallet/getenergyprices / getbandwidthprices form: "0:<genesis price>,<ms>:<new price>,...". */
export function priceHistory(name: 'energyFeeSun' | 'bandwidthFeeSun'): string {
  const changes = priceChanges.filter((c) => c.name === name).map((c) => `${c.at}:${c.value}`);
  return [`0:${PARAMETERS[name].value}`, ...changes].join(',');
}

/** The `chainParameter` rows in wallet/getchainparameters form. */
export function chainParameters(): Array<{ key: string; value: bigint }> {
  return (Object.keys(PARAMETERS) as ParameterName[]).flatMap((name) => {
    const p = PARAMETERS[name] as { chainParameter?: string };
    return p.chainParameter ? [{ key: p.chainParameter, value: param(name) }] : [];
  });
}

/** The live table, int64 values as decimal strings (GET /devnet/info). */
export function parameterTable(): Record<string, { value: string; chainParameter?: string; doc: string }> {
  return Object.fromEntries((Object.keys(PARAMETERS) as ParameterName[]).map((name) => [name, { ...PARAMETERS[name], value: param(name).toString() }]));
}
