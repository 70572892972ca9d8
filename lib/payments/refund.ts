import { gasInUsdt } from '@/lib/rates';
import type { WorkerContext } from '@/lib/worker/context';
import { type Payment } from './payment';
import { followOut, latestSend } from '@/lib/sends/steps';
import { hold, refusedHeld, settle, failPayment } from './outcomes';
import { REFUND_NOT_WORTH_IT, invoiceSendReads, uneconomic, sendFromInvoice, unfitRecipient } from './invoiceSends';

/** Returns a payment that failed AML to its sender, less the network cost of doing so. */
export async function refund(ctx: WorkerContext, p: Payment): Promise<void> {
  // Its gas and lending, out before it (issue 24), are followed to their end and booked; nothing of the refund
  // can go on while one is in no block yet (as for a forward: forward.ts).
  if ((await followOut(ctx, p)).inNoBlock > 0) return;
  // A merchant's release may name where held funds go back to; otherwise the sender.
  const to = p.releaseAddress ?? p.fromAddress;
  // Never to a smart contract (issue 34: a sender that is one, or an address named before releases refused them),
  // nor from or to an address the USDT contract has frozen (issue 37).
  const current = await latestSend(ctx, p.id, { purpose: 'REFUND' });
  const unfit = await unfitRecipient(ctx, p, 'REFUND', current, to, p.releaseAddress ? 'the address it was released to' : 'its sender');
  if (unfit) return hold(ctx, p, unfit);
  // Judged before any gas is bought for it (issue 22, case 7): gas for a refund that returns nothing would be stranded.
  // A merchant's own REFUND release is no AML matter: its reason says only what it is.
  const notWorthIt = p.releaseAction === 'REFUND' ? 'uneconomic: returning it would cost more than it is worth' : REFUND_NOT_WORTH_IT;
  const reads = invoiceSendReads(ctx, p, to);
  if (await uneconomic(ctx, p, 'REFUND', 0n, reads)) return hold(ctx, p, notWorthIt);
  const outcome = await sendFromInvoice(ctx, p, 'REFUND', to, async (burnSun) => {
    // The figures of the deduction are kept on the payment (migration 0057): reconcile recomputes the kept cost from them.
    // Written with the send's row, not here: a build whose send is not stored must record nothing (PlannedSend.deduction).
    if (p.currency === 'TRX') return { amountUnits: p.amountUnits - burnSun, deduction: { costSun: burnSun } };
    const gas = await gasInUsdt(ctx.rates, burnSun, ctx.settings.GAS_MARGIN_PERCENT);
    return { amountUnits: p.amountUnits - gas.units, deduction: { costSun: gas.gasSun, trxRateUsd: gas.trxRateUsd, usdtRateUsd: gas.usdtRateUsd } };
  }, reads);
  if (outcome.state === 'pending') return;
  // Refused for good (issue 34): held again, so the merchant can release it to another address; never burned, never reported done.
  if (outcome.state === 'exhausted') return outcome.refused ? hold(ctx, p, refusedHeld(to, outcome.error)) : failPayment(ctx, p, outcome.error);
  if (outcome.state === 'skipped') return hold(ctx, p, notWorthIt);
  await settle(ctx, p, 'REFUNDED', 0n, outcome.row);
}
