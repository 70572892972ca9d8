import { TronWeb } from 'tronweb';
import { base58Address } from './address';
import { ChainResponseError } from './errors';
import type { BlockReceipt, BlockReply } from './replies';
import type { Transfer } from './types';

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const TRANSFER_SELECTOR = 'a9059cbb';

/** A 32-byte ABI word or log topic holding an address, to base58. */
const wordAddress = (word: string) => base58Address('41' + word.slice(-40));

/** Whether the block has transactions whose effects only their receipts show (contract calls). */
export function needsReceipts(block: BlockReply): boolean {
  return block.transactions.some((tx) => tx.raw_data.contract[0]?.type === 'TriggerSmartContract');
}

/**
 * Every TRX transfer (TransferContract), every TRX transfer a contract made
 * (an internal transaction) and every Transfer event of the USDT contract in a
 * block, in block order. Events are read from receipts, so USDT moved by
 * another contract is seen too. A direct USDT transfer() that failed is
 * reported with success=false, so that a payer's attempt is visible.
 *
 * TRX a contract sent counts only as the chain executed it (issue 37): its
 * transaction succeeded and the internal transaction was not rejected. In 2024
 * contracts made "TRX transfers" inside calls that reverted to exchange
 * deposit addresses, and wallet software that read them as payments credited
 * them (../shared/notes/tron.md); such a transfer moved nothing and is left
 * out. A transfer carrying a TRC-10 token (`tokenId`) is not TRX.
 */
export function blockTransfers(block: BlockReply, receipts: BlockReceipt[], usdtContract: string): Transfer[] {
  const blockNumber = block.block_header.raw_data.number;
  const usdtHex = TronWeb.address.toHex(usdtContract).toLowerCase();
  const byId = new Map(receipts.map((r) => [r.id, r]));
  const transfers: Transfer[] = [];
  for (const tx of block.transactions) {
    const contract = tx.raw_data.contract[0];
    if (!contract) continue;
    const value = contract.parameter.value;
    const expiration = tx.raw_data.expiration;
    if (contract.type === 'TransferContract' && value.to_address) {
      transfers.push({
        txId: tx.txID,
        blockNumber,
        logIndex: null,
        token: 'TRX',
        from: base58Address(value.owner_address),
        to: base58Address(value.to_address),
        amount: value.amount,
        success: tx.ret?.[0]?.contractRet === 'SUCCESS',
        expiration,
      });
    }
    if (contract.type !== 'TriggerSmartContract') continue;
    const receipt = byId.get(tx.txID);
    if (!receipt) throw new ChainResponseError(`no receipt for contract call ${tx.txID} in block ${blockNumber}`);
    receipt.log.forEach((log, logIndex) => {
      if (('41' + log.address).toLowerCase() !== usdtHex || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) return;
      transfers.push({
        txId: tx.txID,
        blockNumber,
        logIndex,
        token: 'USDT',
        from: wordAddress(log.topics[1]!),
        to: wordAddress(log.topics[2]!),
        amount: BigInt('0x' + (log.data || '0')),
        success: true,
        expiration,
      });
    });
    const data = value.data ?? '';
    const failed = receipt.result === 'FAILED' || tx.ret?.[0]?.contractRet !== 'SUCCESS';
    // A call's internal TRX moved only if the whole call succeeded: a reverted call undoes them all.
    const executed = !failed && receipt.receipt.result === 'SUCCESS';
    receipt.internal_transactions.forEach((inner, internalIndex) => {
      if (!executed || inner.rejected) return;
      const sun = inner.callValueInfo.reduce((sum, v) => (v.tokenId ? sum : sum + v.callValue), 0n);
      if (sun <= 0n) return;
      transfers.push({
        txId: tx.txID,
        blockNumber,
        logIndex: null,
        internalIndex,
        token: 'TRX',
        from: base58Address(inner.caller_address),
        to: base58Address(inner.transferTo_address),
        amount: sun,
        success: true,
        expiration,
      });
    });
    if (failed && value.contract_address?.toLowerCase() === usdtHex && data.startsWith(TRANSFER_SELECTOR) && data.length === 136) {
      transfers.push({
        txId: tx.txID,
        blockNumber,
        logIndex: null,
        token: 'USDT',
        from: base58Address(value.owner_address),
        to: wordAddress(data.slice(8, 72)),
        amount: BigInt('0x' + data.slice(72)),
        success: false,
        expiration,
      });
    }
  }
  return transfers;
}
