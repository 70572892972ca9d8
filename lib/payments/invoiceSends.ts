import type { TransferCost } from '@/lib/chain/types';
import type { Transaction } from '@/lib/generated/prisma/client';
import { parseScaled } from '@/lib/money/decimal';
import { convertUnits, withMargin } from '@/lib/money/fees';
import { RATE_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { ensureGas, spendableTrx } from './gas';
import { ensureSend, exhausted, feeLimitOf, latestSend, nextAttempt, type PlannedSend, type SendOutcome } from './sends';
import { type Payment, toDecimal, invoiceKey } from './payment';

/** Sends from an invoice address: judged worth it first, gas bought for USDT, sized at the current price, never broadcast underfunded. */
export const REFUND_NOT_WORTH_IT = 'AML failed, and returning it would cost more than it is worth';

/**
 * Whether sending this payment on costs more than it is worth (issue 13, cases 3 and 4):
 * the network cost of the forward or refund (for USDT: its gas, at current rates) against
 * what the merchant would receive or the sender get back. Judged once, before anything is
 * sent, gas included (issue 22, case 7); null when it is worth it.
 */
export async function uneconomic(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, fee: bigint): Promise<string | null> {
  if (await latestSend(ctx, p.id, { purpose })) return null;
  if (await latestSend(ctx, p.id, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: 1 })) return null;
  const worth = p.amountUnits - fee;
  const cost = await ctx.chain.estimateTransfer({ token: p.currency as Currency, from: invoiceKey(p).address, to, amount: p.amountUnits });
  let costInToken = cost.totalFeeSun;
  if (p.currency === 'USDT') {
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    costInToken = convertUnits(withMargin(cost.totalFeeSun, ctx.settings.GAS_MARGIN_PERCENT), parseScaled(trx.rateUsd, RATE_DECIMALS), parseScaled(usdt.rateUsd, RATE_DECIMALS));
  }
  if (costInToken < worth) return null;
  if (purpose === 'REFUND') return REFUND_NOT_WORTH_IT;
  return `uneconomic: forwarding would cost ${toDecimal(costInToken)} ${p.currency}${p.currency === 'USDT' ? ` (${toDecimal(cost.totalFeeSun)} TRX of network fees)` : ''}, not less than the ${toDecimal(worth)} ${p.currency} it is worth`;
}

/**
 * Sends `amount` of the payment's token from the invoice address to `to`. USDT
 * first needs TRX at the invoice address for energy, funded from the gas wallet
 * (lib/payments/gas.ts), keyed by the send attempt it funds. Gas, fee_limit and
 * the attempt check share one estimate per round, read fresh from the node (the
 * energy price and the energy as they are now: docs/worker.md, "Sends").
 */
export async function sendFromInvoice(ctx: WorkerContext, p: Payment, purpose: 'FORWARD' | 'REFUND', to: string, amountFor: (burnSun: bigint) => Promise<bigint>): Promise<SendOutcome> {
  const { address, privateKey } = invoiceKey(p);
  const token = p.currency as Currency;
  const step = { purpose, address } as const;
  if (token === 'TRX') {
    return ensureSend(ctx, p, step, async () => {
      const cost = await ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits });
      const amount = await amountFor(cost.totalFeeSun);
      if (amount <= 0n) return null;
      return { type: 'TRANSFER', from: address, to, amountUnits: amount, currency: token, costPayer: 'PAYMENT', signed: await ctx.chain.buildSignedTrxTransfer(privateKey, to, amount) };
    });
  }
  let estimated: Promise<TransferCost> | undefined;
  const estimate = () => (estimated ??= ctx.chain.estimateTransfer({ token, from: address, to, amount: p.amountUnits }));
  // What the send burns (energy and bandwidth); its fee_limit, and the gas the address must hold, add GAS_MARGIN_PERCENT.
  const burnNow = async () => {
    const cost = await estimate();
    return cost.energyFeeSun + cost.bandwidthFeeSun;
  };
  const feeLimitNow = async () => withMargin(await burnNow(), ctx.settings.GAS_MARGIN_PERCENT);
  const gasFor = (attempt: number, needSun: () => Promise<bigint>) =>
    ensureGas(ctx, p, { purpose: purpose === 'FORWARD' ? 'FORWARD_GAS' : 'REFUND_GAS', index: attempt, address }, address, needSun, purpose === 'FORWARD' ? 'MERCHANT' : 'SERVICE', { topUp: true });
  const latest = await latestSend(ctx, p.id, step);
  const attempt = nextAttempt(latest);
  if (attempt !== null) {
    // No gas for an attempt that will not be made (issue 22, case 6): the attempt limit first.
    const error = await exhausted(ctx, p, step, burnNow);
    if (error) return { state: 'exhausted', error };
    const gas = await gasFor(attempt, feeLimitNow);
    if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
  } else if (latest?.sendState === 'SIGNED') {
    // Stored and not known to be out: before it is broadcast the address holds its fee_limit, topped
    // up for the same attempt if the gas that arrived is short (it is never rebuilt unless proven
    // dead: a worker that died after broadcasting it may not have recorded that).
    const limit = feeLimitOf(latest);
    if (limit !== null) {
      const gas = await gasFor(latest.sendAttempt ?? 1, async () => limit);
      if (gas.state === 'pending' || gas.state === 'exhausted') return gas;
    }
  }
  const plan = async (): Promise<PlannedSend | null> => {
    const cost = await estimate();
    const amount = await amountFor(cost.totalFeeSun);
    if (amount <= 0n) return null;
    return {
      type: 'TRANSFER',
      from: address,
      to,
      amountUnits: amount,
      currency: token,
      // A USDT forward's energy is the merchant's; a refund's is deducted from what is returned.
      costPayer: purpose === 'FORWARD' ? 'MERCHANT' : 'PAYMENT',
      signed: await ctx.chain.buildSignedUsdtTransfer(privateKey, to, amount, await feeLimitNow()),
    };
  };
  return ensureSend(ctx, p, step, plan, { burnNowSun: burnNow, beforeBroadcast: (row) => underfunded(ctx, row) });
}

/**
 * Why a stored USDT send must not be broadcast now, or null (issue 22, case 2). Checked with a
 * new estimate, not the one it was built on: the price or the energy may have risen meanwhile.
 * A fee_limit below what the send burns now would run OUT_OF_ENERGY and burn it all: the send is
 * kept back until it expires and is proven dead, then rebuilt at the new price. An address
 * holding less than the fee_limit (gas that arrived before the price rose) is topped up first.
 */
async function underfunded(ctx: WorkerContext, row: Transaction): Promise<string | null> {
  const limit = feeLimitOf(row);
  if (limit === null) return null;
  const cost = await ctx.chain.estimateTransfer({ token: row.currency as Currency, from: row.fromAddress, to: row.toAddress, amount: row.amountUnits, feeLimitSun: limit });
  const burn = cost.energyFeeSun + cost.bandwidthFeeSun;
  if (limit < burn) return `its fee_limit of ${toDecimal(limit)} TRX is below the ${toDecimal(burn)} TRX it would burn now (the energy price or its energy rose since it was built); rebuilt once it is proven dead`;
  const have = await spendableTrx(ctx, row.fromAddress);
  if (have < limit) return `the address holds ${toDecimal(have)} TRX of gas, less than its fee_limit of ${toDecimal(limit)} TRX; topped up first`;
  return null;
}
