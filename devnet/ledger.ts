import { param } from './params';

/** One address as the devnet keeps it; addresses are hex with the 41 prefix. */
export interface AccountState {
  /** TRX in sun. */
  balance: bigint;
  /** USDT base units, stored in the TRC-20 contract and so independent of activation. */
  usdt: bigint;
  /** When the account was created (ms); null while the address is not an account. */
  createTime: number | null;
  /** Free bandwidth used as of `freeNetTime`; it recovers linearly over the resource window. */
  freeNetUsage: bigint;
  freeNetTime: number;
}

const EMPTY: AccountState = { balance: 0n, usdt: 0n, createTime: null, freeNetUsage: 0n, freeNetTime: 0 };

/** Usage left after recovery up to `now` (java-tron's linear window decay). */
export function recoveredUsage(usage: bigint, since: number, now: number): bigint {
  const window = param('resourceWindowMs');
  const elapsed = BigInt(Math.max(0, now - since));
  return elapsed >= window ? 0n : (usage * (window - elapsed)) / window;
}

export interface AccountView {
  get(address: string): AccountState;
}

/**
 * Head state (including transactions not yet in a block) plus, per address,
 * the state after every block that touched it, so that `walletsolidity/*`
 * can answer as of the solidified block.
 */
export class Ledger implements AccountView {
  private readonly head = new Map<string, AccountState>();
  private readonly history = new Map<string, Array<{ block: number; state: AccountState }>>();

  get(address: string): AccountState {
    return { ...(this.head.get(address) ?? EMPTY) };
  }

  set(address: string, state: AccountState): void {
    this.head.set(address, { ...state });
  }

  /** Records the post-block state of the accounts a block touched. */
  commit(block: number, accounts: Record<string, AccountState>): void {
    for (const [address, state] of Object.entries(accounts)) {
      this.head.set(address, { ...state });
      const entries = this.history.get(address) ?? [];
      entries.push({ block, state: { ...state } });
      this.history.set(address, entries);
    }
  }

  /** The state as of the end of block `block`. */
  at(block: number): AccountView {
    return {
      get: (address) => {
        const entries = this.history.get(address) ?? [];
        for (let i = entries.length - 1; i >= 0; i--) {
          const entry = entries[i]!;
          if (entry.block <= block) return { ...entry.state };
        }
        return { ...EMPTY };
      },
    };
  }
}
