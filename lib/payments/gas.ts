import type { CostPayer, Transaction } from '@/lib/generated/prisma/client';
import type { WorkerContext } from './context';
import { ensureSend, type SendOptions, type SendOutcome, type SendStep } from './sends';

// Held and failed payments are subtracted through their HELD ledger rows below.
const UNFORWARDED = ['DETECTED', 'AML_PENDING', 'FORWARDING', 'REFUNDING'] as const;

/**
 * TRX at `address` that this send may burn: what both the chain and the ledger
 * say the address holds (the smaller, so TRX the scanner has not recorded yet
 * is never taken for gas), less every other payment's TRX still waiting there
 * and the service fees kept there. Another payment's funds are never gas
 * (issue 13, case 1).
 */
export async function spendableTrx(ctx: WorkerContext, address: string, anchorId: number): Promise<bigint> {
  const [chainBalance, ledger, waiting, kept] = await Promise.all([
    ctx.chain.getTrxBalance(address),
    ctx.prisma.ledgerEntry.aggregate({ where: { address, currency: 'TRX' }, _sum: { deltaUnits: true } }),
    ctx.prisma.transaction.aggregate({ where: { toAddress: address, type: 'PAYMENT', currency: 'TRX', paymentState: { in: [...UNFORWARDED] }, id: { not: anchorId } }, _sum: { amountUnits: true } }),
    ctx.prisma.ledgerEntry.aggregate({ where: { address, currency: 'TRX', kind: { in: ['FEE_KEPT', 'HELD'] } }, _sum: { units: true } }),
  ]);
  const ledgerBalance = ledger._sum.deltaUnits ?? 0n;
  const held = chainBalance < ledgerBalance ? chainBalance : ledgerBalance;
  return held - (waiting._sum.amountUnits ?? 0n) - (kept._sum.units ?? 0n);
}

/**
 * The one gas step, shared by payments and payouts: before a USDT send from
 * `address`, the service gas wallet tops the address up to `needSun` (the
 * estimated burn with GAS_MARGIN_PERCENT) with an ACTIVATION transaction.
 * Keyed by the attempt it funds, so a send that failed on chain gets fresh gas
 * and a landed send never gets more. With `topUp`, gas that arrived for the
 * attempt is checked against `needSun` again each time it is asked (the price
 * may have risen since): short, it is topped up for the same attempt (a new
 * send of the step); the caller asks only while the send it funds is not out.
 */
export function ensureGas(
  ctx: WorkerContext,
  anchor: Pick<Transaction, 'id' | 'merchantId' | 'invoiceId' | 'eventId' | 'operatorRetries'>,
  step: SendStep,
  address: string,
  needSun: () => Promise<bigint>,
  costPayer: CostPayer,
  options: Pick<SendOptions, 'topUp'> = {},
): Promise<SendOutcome> {
  return ensureSend(ctx, anchor, step, async () => {
    const need = await needSun();
    const have = await spendableTrx(ctx, address, anchor.id);
    if (have >= need) return null;
    const amount = need - (have > 0n ? have : 0n);
    return {
      type: 'ACTIVATION',
      from: ctx.gasWallet.address,
      to: address,
      amountUnits: amount,
      currency: 'TRX',
      costPayer,
      signed: await ctx.chain.buildSignedTrxTransfer(ctx.gasWallet.privateKey, address, amount),
    };
  }, options);
}
