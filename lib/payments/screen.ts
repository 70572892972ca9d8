import { runAmlCheck } from '@/lib/aml/check';
import { changeMerchantBalance } from '@/lib/merchants/balance';
import { parseScaled } from '@/lib/money/decimal';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { type Payment, move } from './payment';

/** The AML step: screened payments go on to FORWARDING or REFUNDING, or are held when the provider refused the check. */
export async function screen(ctx: WorkerContext, p: Payment): Promise<void> {
  if (!p.merchant.amlCheck) {
    await move(ctx.prisma, ctx, p, { to: 'FORWARDING' });
    return;
  }
  // Released held funds come back here already AML_PENDING.
  if (p.paymentState === 'DETECTED') {
    if (!(await move(ctx.prisma, ctx, p, { to: 'AML_PENDING' }))) return;
    p = { ...p, paymentState: 'AML_PENDING' };
  }
  const costTrx = ctx.settings.AML_CHECK_COST_TRX;
  const { record, passed, hold: holdReason } = await runAmlCheck(ctx.aml, { txId: p.trnHash, address: p.fromAddress, currency: p.currency }, Number(p.merchant.amlRiskLimit.toFixed()), Number(costTrx));
  if (holdReason) {
    // Held only once final (issue 24): until then the check is asked again each round (a refused check costs nothing).
    if (!p.solidified) return;
    await ctx.prisma.$transaction((tx) => move(tx, ctx, p, { to: 'HELD', reason: holdReason, data: { amlCheck: record as object, heldReason: holdReason, error: null } }));
    return;
  }
  await ctx.prisma.$transaction(async (tx) => {
    if (!(await move(tx, ctx, p, { to: passed ? 'FORWARDING' : 'REFUNDING', data: { amlCheck: record as object } }))) return;
    if (record.completed) await changeMerchantBalance(tx, { merchantId: p.merchantId, balance: 'BALANCE', kind: 'AML_CHECK', deltaSun: -parseScaled(costTrx, TOKEN_DECIMALS), transactionId: p.id });
  });
}
