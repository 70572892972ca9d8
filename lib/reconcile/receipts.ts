import type { Chain, TransactionStatus } from '@/lib/chain/types';

/**
 * What the chain says about our sends, read once per transaction for one
 * reconciliation: the fee it burned and whether it succeeded are taken from the
 * node, never from the send's own row (which is what is being checked).
 */
export function receiptReader(chain: Chain): (txId: string) => Promise<TransactionStatus> {
  const seen = new Map<string, Promise<TransactionStatus>>();
  return (txId) => {
    let status = seen.get(txId);
    if (!status) seen.set(txId, (status = chain.getTransactionStatus(txId)));
    return status;
  };
}
