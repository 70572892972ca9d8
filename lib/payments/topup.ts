import { changeMerchantBalance } from '@/lib/merchants/balance';
import { parseScaled } from '@/lib/money/decimal';
import { percentOf } from '@/lib/money/fees';
import { RATE_DECIMALS } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { type Payment, move } from './payment';

/**
 * Credits a merchant wallet top-up: TRX as is; USDT at the current rates less
 * TOPUP_FEE_PERCENT. The activation wallet feeds the activation balance.
 */
export async function creditTopup(ctx: WorkerContext, p: Payment): Promise<void> {
  let creditSun = p.amountUnits;
  let fee = 0n;
  let rates: { trxRateUsd: string; usdtRateUsd: string } | undefined;
  if (p.currency === 'USDT') {
    const [trx, usdt] = await Promise.all([ctx.rates.quote('TRX'), ctx.rates.quote('USDT')]);
    const gross = (p.amountUnits * parseScaled(usdt.rateUsd, RATE_DECIMALS)) / parseScaled(trx.rateUsd, RATE_DECIMALS);
    fee = percentOf(gross, ctx.topupFeePercent);
    creditSun = gross - fee;
    // Kept with the top-up (migration 0057): reconcile recomputes the credit from them.
    rates = { trxRateUsd: trx.rateUsd, usdtRateUsd: usdt.rateUsd };
  }
  const balance = p.toAddress === p.merchant.activationWalletAddress ? 'ACTIVATION' : 'BALANCE';
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await move(tx, ctx, p, { to: 'SETTLED', data: { feeUnits: fee, ...rates } }))) return;
    await changeMerchantBalance(tx, { merchantId: p.merchantId, balance, kind: 'TOPUP_CREDIT', deltaSun: creditSun, transactionId: p.id });
  });
}
