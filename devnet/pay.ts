import { TronWeb } from 'tronweb';
import { z } from 'zod';
import type { Chain } from '@/lib/chain';
import { FAKE_USDT_CONTRACT, PAYER_CONTRACT, PAYER_FUNCTIONS } from './contracts';
import { DecimalFormatError } from '@/lib/money/decimal';
import { currencySchema, TOKEN_DECIMALS, tokenUnits } from '@/lib/money/tokens';

export const payRequestSchema = z.object({
  address: z.string().refine((a) => TronWeb.isAddress(a) && a.startsWith('T'), 'address must be a base58 Tron address (T...)'),
  amount: z
    .string()
    .refine((a) => {
      try {
        return tokenUnits(a) > 0n;
      } catch (e) {
        if (e instanceof DecimalFormatError) return false;
        throw e;
      }
    }, `amount must be a positive decimal string with at most ${TOKEN_DECIMALS} decimals, like "12.5"`),
  currency: currencySchema,
  /**
   * The caller's name for this payment: the same id sent again (an answer lost to a dropped
   * connection) gets the first payment's txid instead of paying twice.
   */
  request_id: z.string().min(1).max(128).optional(),
});

export type PayRequest = z.infer<typeof payRequestSchema>;

/**
 * Sends from the faucet, the way a customer's wallet would: built and signed
 * with tronweb, broadcast to the node. Returns once the node accepted it.
 */
export async function sendFromFaucet(chain: Chain, faucetPrivateKey: string, request: PayRequest): Promise<{ txId: string }> {
  const units = tokenUnits(request.amount);
  const from = TronWeb.address.fromPrivateKey(faucetPrivateKey);
  if (!from) throw new TypeError('invalid faucet key');
  // A transaction is built on the newest head the chain layer read within SEND_HEAD_FRESH_MS, and
  // takes its timestamp from that block: the same amount to the same address paid again that soon
  // is the same transaction, which the node answers DUP_TRANSACTION_ERROR (`alreadyKnown`) and
  // does not pay again. A payment asked for is a payment of its own (a request sent again is
  // answered by its request_id before this), so it is built again on a newer block.
  for (let attempt = 1; ; attempt++) {
    let signed;
    if (request.currency === 'TRX') {
      signed = await chain.buildSignedTrxTransfer(faucetPrivateKey, request.address, units);
    } else {
      const cost = await chain.estimateTransfer({ token: 'USDT', from, to: request.address, amount: units });
      // Twice the estimate: room for the recipient's state to change before the block.
      signed = await chain.buildSignedUsdtTransfer(faucetPrivateKey, request.address, units, cost.energyFeeSun * 2n);
    }
    const { txId, alreadyKnown } = await chain.broadcast(signed.signedTx);
    if (!alreadyKnown) return { txId };
    if (attempt >= REBUILD_ATTEMPTS) throw new Error(`the faucet's payment ${txId} was the same transaction as one sent before, ${attempt} times: no newer block`);
    await new Promise((r) => setTimeout(r, 100));
    await chain.getHead(); // the next build reads this head, a newer block once one is made
  }
}

/** How many times a payment identical to one sent before is built again, 100 ms apart: a minute. */
const REBUILD_ATTEMPTS = 600;

/** POST /devnet/pay-via-contract: as /devnet/pay, through the devnet's payer contract (devnet/contracts.ts). */
export const payViaContractSchema = payRequestSchema
  .omit({ request_id: true })
  .extend({
    /** TRX only: the contract's inner call reverts and is caught; the transaction succeeds, its internal transfer is rejected and pays nothing. */
    reverted: z.boolean().default(false),
  })
  .refine((r) => !r.reverted || r.currency === 'TRX', { message: 'reverted applies to TRX only', path: ['reverted'] });

/** POST /devnet/fake-token/pay: the look-alike "Tether USD" token's transfer to an address (it moves nothing). */
export const fakeTokenPaySchema = payRequestSchema.pick({ address: true, amount: true });

const FEE_LIMIT_SUN = 100_000_000;

/** A contract call from the faucet, built by the node and signed with tronweb, as a wallet makes one. */
async function callFromFaucet(nodeUrl: string, faucetPrivateKey: string, contractHex: string, signature: string, parameters: Array<{ type: string; value: unknown }>, callValue: bigint): Promise<{ txId: string }> {
  const tronWeb = new TronWeb({ fullHost: nodeUrl, privateKey: faucetPrivateKey });
  const from = TronWeb.address.fromPrivateKey(faucetPrivateKey);
  if (!from) throw new TypeError('invalid faucet key');
  const built = await tronWeb.transactionBuilder.triggerSmartContract(TronWeb.address.fromHex(contractHex), signature, { feeLimit: FEE_LIMIT_SUN, callValue: Number(callValue) }, parameters, from);
  if (!built.result?.result) throw new Error(`the node did not build the call: ${JSON.stringify(built.result)}`);
  const signed = await tronWeb.trx.sign(built.transaction, faucetPrivateKey);
  const sent = await tronWeb.trx.sendRawTransaction(signed);
  if (!('result' in sent) || !sent.result) throw new Error(`the node refused the call: ${JSON.stringify(sent)}`);
  return { txId: signed.txID };
}

export function payViaContract(nodeUrl: string, faucetPrivateKey: string, request: z.infer<typeof payViaContractSchema>): Promise<{ txId: string }> {
  const units = tokenUnits(request.amount);
  const to = { type: 'address', value: request.address };
  return request.currency === 'TRX'
    ? callFromFaucet(nodeUrl, faucetPrivateKey, PAYER_CONTRACT, PAYER_FUNCTIONS.payTrx, [to, { type: 'bool', value: request.reverted }], units)
    : callFromFaucet(nodeUrl, faucetPrivateKey, PAYER_CONTRACT, PAYER_FUNCTIONS.payUsdt, [to, { type: 'uint256', value: units.toString() }], 0n);
}

export function payFakeToken(nodeUrl: string, faucetPrivateKey: string, request: z.infer<typeof fakeTokenPaySchema>): Promise<{ txId: string }> {
  const units = tokenUnits(request.amount);
  return callFromFaucet(nodeUrl, faucetPrivateKey, FAKE_USDT_CONTRACT, 'transfer(address,uint256)', [{ type: 'address', value: request.address }, { type: 'uint256', value: units.toString() }], 0n);
}
