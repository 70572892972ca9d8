import type { ContractCall } from './transaction';

/**
 * Faults a test can switch on (POST /devnet/fault/*). Each matches
 * broadcasts by owner (`from`) and/or recipient (`to`) and applies to the
 * next `count` of them (null: every match until cleared). All are off
 * unless asked for, and none survives a restart.
 */

export type FailResult = 'OUT_OF_ENERGY' | 'REVERT';

export type FaultSpec =
  | { kind: 'drop'; from: string | null; to: string | null; count: number | null }
  | { kind: 'delay'; from: string | null; to: string | null; count: number | null; blocks: number }
  | { kind: 'fail'; from: string | null; to: string | null; count: number | null; result: FailResult }
  /** The broadcast is refused with this java-tron response code and message, as a node refuses one it judges invalid (issue 34). */
  | { kind: 'refuse'; from: string | null; to: string | null; count: number | null; code: string; message: string };

export type Fault = FaultSpec & {
  id: number;
  /** Transactions it applied to, in order. */
  hits: string[];
};

const TRANSFER_SELECTOR = 'a9059cbb';

/** Who a transaction pays or serves: the TRX or TRC-20 recipient, the delegation receiver, or the contract called. */
function recipientOf(call: ContractCall): string | null {
  switch (call.type) {
    case 'TransferContract':
      return call.to;
    case 'TriggerSmartContract':
      return call.data.startsWith(TRANSFER_SELECTOR) && call.data.length >= 72 ? '41' + call.data.slice(32, 72) : call.contract;
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract':
      return call.receiver;
    default:
      return null;
  }
}

export class Faults {
  private faults: Fault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): Fault {
    const fault: Fault = { ...spec, id: this.nextId++, hits: [] };
    this.faults.push(fault);
    return fault;
  }

  /**
   * The first live fault matching this transaction. A fail fault only
   * matches contract calls: a TRX transfer has no receipt that can fail.
   */
  match(call: ContractCall): Fault | undefined {
    const to = recipientOf(call);
    return this.faults.find(
      (f) =>
        (f.count === null || f.count > 0) &&
        (f.from === null || f.from === call.owner) &&
        (f.to === null || f.to === to) &&
        (f.kind !== 'fail' || call.type === 'TriggerSmartContract'),
    );
  }

  /** Records that `fault` applied to `txID`. */
  hit(fault: Fault, txID: string): void {
    fault.hits.push(txID);
    if (fault.count !== null) fault.count--;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f, hits: [...f.hits] }));
  }

  clear(): void {
    this.faults = [];
  }
}
