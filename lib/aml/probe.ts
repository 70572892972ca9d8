import type { AmlProvider } from './provider';
import { AmlConfigError } from './provider';

export type ProbeVerdict =
  /** The provider answered a check: credentials and URL work. */
  | { start: true }
  /** Not known (timeout, 5xx, unreachable): start, fail-open as for any check, but say so loudly. */
  | { start: true; alert: string }
  /** The provider refused us (4xx, `result: false`): every check would be refused; do not start. */
  | { start: false; error: string };

/**
 * Checks the AML provider's credentials once at start-up with one authenticated request the
 * provider answers: a check of `address` (the service's gas wallet; an address check of the
 * same form as a payment's, with the address as its hash). Issue 13, case 10: wrong credentials
 * must not wait for the first payment to be found out. The verdict follows the fail-open and
 * fail-closed rules of a payment's check (docs/worker.md, "AML").
 */
export async function probeAmlProvider(provider: AmlProvider, address: string): Promise<ProbeVerdict> {
  try {
    await provider.check({ txId: address, address, currency: 'TRX' });
    return { start: true };
  } catch (err) {
    const message = (err as Error).message;
    if (err instanceof AmlConfigError) return { start: false, error: message };
    return { start: true, alert: message };
  }
}
