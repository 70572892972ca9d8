import { TronWeb } from 'tronweb';
import { waitFor } from './wait';

// What the devnet tests do through an unmodified TronWeb, written once: a fresh account, a
// node's hex-encoded refusal message, a receipt, a USDT transfer and a USDT balance.

export type Account = { address: string; privateKey: string };
export type Signed = Parameters<TronWeb['trx']['sendRawTransaction']>[0];

export async function newAccount(): Promise<Account> {
  const a = await TronWeb.createAccount();
  return { address: a.address.base58, privateKey: a.privateKey };
}

/** java-tron sends a refusal's message hex-encoded. */
export const hexMessage = (m: string | undefined) => Buffer.from(m ?? '', 'hex').toString('utf8');

/** Waits until the node has a receipt for the transaction (in a block, not necessarily solidified). */
export function receipt(tw: TronWeb, txId: string) {
  return waitFor(`receipt of ${txId}`, async () => {
    const i = await tw.trx.getUnconfirmedTransactionInfo(txId);
    return Object.keys(i).length ? i : undefined;
  });
}

/** An unsigned TRC-20 `transfer(to, units)` from `from`, as a wallet builds it. */
export async function usdtTransferTx(tw: TronWeb, usdtContract: string, from: string, to: string, units: bigint, feeLimit = 100_000_000) {
  const { transaction } = await tw.transactionBuilder.triggerSmartContract(
    usdtContract,
    'transfer(address,uint256)',
    { feeLimit },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: units.toString() },
    ],
    from,
  );
  return transaction;
}

export async function usdtBalanceOf(tw: TronWeb, usdtContract: string, address: string): Promise<bigint> {
  const r = await tw.transactionBuilder.triggerConstantContract(usdtContract, 'balanceOf(address)', {}, [{ type: 'address', value: address }], address);
  return BigInt('0x' + r.constant_result![0]);
}
