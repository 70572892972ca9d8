import type { WorkerContext } from '@/lib/worker/context';
import { followOut, latestSend } from '@/lib/sends/steps';
import { paymentFee } from '@/lib/rules/settlement';
import { type Payment } from './payment';
import { hold, refusedHeld, settle, failPayment } from './outcomes';
import { invoiceSendReads, uneconomic, sendFromInvoice, unfitRecipient } from './invoiceSends';

/**
 * The forward step: the payment, less the service fee (and for TRX its network cost), to the
 * merchant's target wallet, once judged worth it; settled when the send is confirmed, held when
 * it cannot be made economically, failed when it cannot succeed.
 */
export async function forward(ctx: WorkerContext, p: Payment): Promise<void> {
  // Its gas and lending, out before it (issue 24), are followed to their end and booked. While one is in
  // no block yet, nothing of the forward can go on (it is built once they land): its checks and its plan
  // are made when they have, not every round before (issue 37: whether the target is a contract, the blacklist
  // and the estimate were asked every round, 68 and 136 requests in 5 s of a test's 50 ms rounds; none now).
  if ((await followOut(ctx, p)).inNoBlock > 0) return;
  // A forward already signed goes where it was built to go: its fate is followed to the end, whatever
  // the merchant's wallet is now (a wallet cleared or changed mid-forward must not orphan it; issue 22,
  // case 3). A new attempt, after a proven death, goes to the wallet set then.
  const current = await latestSend(ctx, p.id, { purpose: 'FORWARD' });
  const target = current && current.sendState !== 'FAILED' ? current.toAddress : p.merchant.targetWalletAddress;
  // Not waited for: a payment FORWARDING forever blocks its invoice's expiry and webhooks (case 9).
  if (!target) return hold(ctx, p, 'merchant has no target wallet: set one, then release the payment');
  // A new attempt goes to the wallet set now: never to a smart contract, where TRX is refused for good and USDT lost
  // (issue 34; a wallet set before the dashboard refused contracts), nor from or to an address the USDT contract
  // has frozen (issue 37). Held with the reason, nothing bought for it, for the merchant to change it and release.
  const unfit = await unfitRecipient(ctx, p, 'FORWARD', current, target, 'the target wallet');
  if (unfit) return hold(ctx, p, unfit);
  const row = p.invoice?.amounts.find((a) => a.currency === p.currency);
  const fee = paymentFee(p.amountUnits, row, ctx.forwardingFeePercent);
  // The judgment of its worth and its plan read the estimate and the pool once for both (issue 37).
  const reads = invoiceSendReads(ctx, p, target);
  // Released by the merchant: forwarded as it is, the hold rules are not applied again.
  const notWorthIt = p.releaseAction === 'FORWARD' ? null : await uneconomic(ctx, p, 'FORWARD', fee, reads);
  if (notWorthIt) return hold(ctx, p, notWorthIt);
  // TRX pays its own network fee out of the forwarded amount; USDT's is paid by the gas wallet.
  const outcome = await sendFromInvoice(ctx, p, 'FORWARD', target, async (burnSun) => ({ amountUnits: p.amountUnits - fee - (p.currency === 'TRX' ? burnSun : 0n) }), reads);
  if (outcome.state === 'pending') return;
  // Refused for good (issue 34): nothing can be sent to that wallet; held, so the merchant can change it and release.
  if (outcome.state === 'exhausted') return outcome.refused ? hold(ctx, p, refusedHeld(target, outcome.error)) : failPayment(ctx, p, outcome.error);
  if (outcome.state === 'skipped') return hold(ctx, p, outcome.reason ?? 'uneconomic: nothing would be left to forward after the network cost');
  await settle(ctx, p, 'SETTLED', fee, outcome.row);
}
