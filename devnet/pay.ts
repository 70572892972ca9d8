import { TronWeb } from 'tronweb';
import { z } from 'zod';
import type { Chain } from '@/lib/chain';
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
  let signed;
  if (request.currency === 'TRX') {
    signed = await chain.buildSignedTrxTransfer(faucetPrivateKey, request.address, units);
  } else {
    const from = TronWeb.address.fromPrivateKey(faucetPrivateKey);
    if (!from) throw new TypeError('invalid faucet key');
    const cost = await chain.estimateTransfer({ token: 'USDT', from, to: request.address, amount: units });
    // Twice the estimate: room for the recipient's state to change before the block.
    signed = await chain.buildSignedUsdtTransfer(faucetPrivateKey, request.address, units, cost.energyFeeSun * 2n);
  }
  const { txId } = await chain.broadcast(signed.signedTx);
  return { txId };
}
