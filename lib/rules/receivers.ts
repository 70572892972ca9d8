import { ChainError } from '@/lib/chain/errors';
import type { Chain } from '@/lib/chain/types';
import { AppError, fieldErrors } from '@/lib/errors';

/** Addresses asked about at once; a payout names up to 1,000. */
const CONCURRENCY = 8;

/**
 * Why no money may be sent to a smart contract (issue 34): a node refuses TRX to one for good, and
 * a USDT transfer to one succeeds on chain, so the USDT is lost (a token contract cannot send it on).
 */
export const CONTRACT_TARGET = 'This address is a smart contract, not a wallet: TRX sent to it is refused by the network and USDT sent to it is lost. Enter a wallet address.';

/** The node could not say whether an address is a contract: nothing that sends money there is accepted meanwhile. */
export const CONTRACT_CHECK_UNAVAILABLE = 'The Tron node could not be asked whether the address can receive funds; try again later';

/**
 * Whether any of `addresses` (field name to address) is a smart contract, asked of the node, which
 * knows: every such field is named with CONTRACT_TARGET (INVALID_INPUT, the edge's 400). When the
 * node cannot be asked, UNAVAILABLE (503): an address that may be a contract is never accepted
 * unchecked. Used wherever a merchant names where money goes: the target wallet, payout targets,
 * the address a held payment is returned to, the address a payout is returned to.
 */
export async function refuseContractTargets(chain: Chain, addresses: Record<string, string>): Promise<void> {
  await refuseWhere(addresses, (a) => chain.isContract(a), CONTRACT_TARGET);
}

/**
 * Why no USDT may be sent to an address the USDT contract has frozen (Tether's blacklist, issue 37):
 * the transfer lands, and nothing can ever leave the address again.
 */
export const FROZEN_TARGET = "This address is frozen by the USDT contract (Tether's blacklist): USDT sent to it could never be moved again. Enter another address.";

/** As refuseContractTargets, for USDT: any of `addresses` the USDT contract has frozen is named with FROZEN_TARGET (400); 503 when the node cannot be asked. */
export async function refuseFrozenTargets(chain: Chain, addresses: Record<string, string>): Promise<void> {
  await refuseWhere(addresses, (a) => chain.isUsdtFrozen(a), FROZEN_TARGET);
}

/** Asks the node about every distinct address, a few at once; each field whose address it answers true for is named with `problem`. */
async function refuseWhere(addresses: Record<string, string>, ask: (address: string) => Promise<boolean>, problem: string): Promise<void> {
  const entries = Object.entries(addresses);
  const answers = new Map<string, boolean>();
  const unique = [...new Set(entries.map(([, a]) => a))];
  try {
    for (let i = 0; i < unique.length; i += CONCURRENCY) {
      const chunk = unique.slice(i, i + CONCURRENCY);
      const replies = await Promise.all(chunk.map(ask));
      chunk.forEach((a, k) => answers.set(a, replies[k]!));
    }
  } catch (err) {
    if (err instanceof ChainError) throw new AppError('UNAVAILABLE', `${CONTRACT_CHECK_UNAVAILABLE} (${err.message})`);
    throw err;
  }
  const bad = entries.filter(([, a]) => answers.get(a));
  if (bad.length) throw fieldErrors(Object.fromEntries(bad.map(([field]) => [field, [problem]])));
}
