import { param } from './params';

export type Resource = 'BANDWIDTH' | 'ENERGY';

/** A Stake 2.0 delegation from the account that holds it to `to`, locked or not (java-tron keys them apart). */
export interface Delegation {
  to: string;
  lock: boolean;
  bandwidth: bigint;
  energy: bigint;
  /** ms; 0 when not locked. */
  bandwidthExpire: number;
  energyExpire: number;
}

/** One address as the devnet keeps it; addresses are hex with the 41 prefix. */
export interface AccountState {
  /** TRX in sun. */
  balance: bigint;
  /** USDT base units, stored in the TRC-20 contract and so independent of activation. */
  usdt: bigint;
  /** On the USDT contract's blacklist (Tether's `isBlackListed`): nothing can leave it; it can still receive. */
  usdtFrozen: boolean;
  /** When the account was created (ms); null while the address is not an account. */
  createTime: number | null;
  /** Free bandwidth used as of `freeNetTime`; it recovers linearly over the resource window. */
  freeNetUsage: bigint;
  freeNetTime: number;
  // Stake 2.0 (absent in block logs written before it; `normalize` fills them in).
  /** Own stake still with the account (java-tron frozenV2). */
  frozenBandwidth: bigint;
  frozenEnergy: bigint;
  /** Own stake lent to others (delegated_frozenV2_balance_for_*). */
  delegatedBandwidth: bigint;
  delegatedEnergy: bigint;
  /** Stake others lent to this account (acquired_delegated_frozenV2_balance_for_*). */
  acquiredBandwidth: bigint;
  acquiredEnergy: bigint;
  /** Staked bandwidth / energy used as of the time beside it; recovers linearly over 24 h. */
  netUsage: bigint;
  netTime: number;
  energyUsage: bigint;
  energyTime: number;
  /** Unstaked amounts waiting for their expiry (unfrozenV2). */
  unfrozen: Array<{ resource: Resource; amount: bigint; expireTime: number }>;
  /** Delegations this account made, keyed `<to>:<lock>`. */
  delegations: Record<string, Delegation>;
  /** Accounts that delegate to this one (getdelegatedresourceaccountindexv2 fromAccounts). */
  delegators: string[];
}

const EMPTY: AccountState = {
  balance: 0n,
  usdt: 0n,
  usdtFrozen: false,
  createTime: null,
  freeNetUsage: 0n,
  freeNetTime: 0,
  frozenBandwidth: 0n,
  frozenEnergy: 0n,
  delegatedBandwidth: 0n,
  delegatedEnergy: 0n,
  acquiredBandwidth: 0n,
  acquiredEnergy: 0n,
  netUsage: 0n,
  netTime: 0,
  energyUsage: 0n,
  energyTime: 0,
  unfrozen: [],
  delegations: {},
  delegators: [],
};

/** A deep copy with every field present. */
export function normalize(state: Partial<AccountState>): AccountState {
  const s = { ...EMPTY, ...state };
  return {
    ...s,
    unfrozen: s.unfrozen.map((u) => ({ ...u })),
    delegations: Object.fromEntries(Object.entries(s.delegations).map(([k, d]) => [k, { ...d }])),
    delegators: [...s.delegators],
  };
}

/** Usage left after recovery up to `now` (java-tron's linear window decay). */
export function recoveredUsage(usage: bigint, since: number, now: number): bigint {
  const window = param('resourceWindowMs');
  const elapsed = BigInt(Math.max(0, now - since));
  return elapsed >= window ? 0n : (usage * (window - elapsed)) / window;
}

export interface AccountView {
  get(address: string): AccountState;
}

/** Sun staked on the devnet for each resource (own stake, delegated or not). */
export interface StakeTotals {
  bandwidthSun: bigint;
  energySun: bigint;
}

const stakeOf = (s: AccountState) => ({ bandwidthSun: s.frozenBandwidth + s.delegatedBandwidth, energySun: s.frozenEnergy + s.delegatedEnergy });

/**
 * Head state (including transactions not yet in a block) plus, per address,
 * the state after every block that touched it, so that `walletsolidity/*`
 * can answer as of the solidified block.
 */
export class Ledger implements AccountView {
  private head = new Map<string, AccountState>();
  private readonly history = new Map<string, Array<{ block: number; state: AccountState }>>();
  private totals: StakeTotals = { bandwidthSun: 0n, energySun: 0n };

  get(address: string): AccountState {
    return normalize(this.head.get(address) ?? EMPTY);
  }

  set(address: string, state: AccountState): void {
    const before = stakeOf(this.head.get(address) ?? EMPTY);
    const after = stakeOf(state);
    this.totals = {
      bandwidthSun: this.totals.bandwidthSun - before.bandwidthSun + after.bandwidthSun,
      energySun: this.totals.energySun - before.energySun + after.energySun,
    };
    this.head.set(address, normalize(state));
  }

  /** Devnet-wide stake at the head. */
  stakeTotals(): StakeTotals {
    return { ...this.totals };
  }

  /** Records the post-block state of the accounts a block touched. */
  commit(block: number, accounts: Record<string, Partial<AccountState>>): void {
    for (const [address, partial] of Object.entries(accounts)) {
      const state = normalize(partial);
      this.set(address, state);
      const entries = this.history.get(address) ?? [];
      entries.push({ block, state: normalize(state) });
      this.history.set(address, entries);
    }
  }

  /**
   * Forgets every block after `block` and every pending change: the head
   * becomes the state at the end of `block` (a chain reorganisation).
   */
  rollback(block: number): void {
    this.head = new Map();
    this.totals = { bandwidthSun: 0n, energySun: 0n };
    for (const [address, entries] of this.history) {
      while (entries.length && entries[entries.length - 1]!.block > block) entries.pop();
      if (!entries.length) {
        this.history.delete(address);
        continue;
      }
      this.set(address, entries[entries.length - 1]!.state);
    }
  }

  /** The state as of the end of block `block`. */
  at(block: number): AccountView {
    return {
      get: (address) => {
        const entries = this.history.get(address) ?? [];
        for (let i = entries.length - 1; i >= 0; i--) {
          const entry = entries[i]!;
          if (entry.block <= block) return normalize(entry.state);
        }
        return normalize(EMPTY);
      },
    };
  }
}
