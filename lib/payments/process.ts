import { backoffMs } from '@/lib/backoff';
import { ChainResponseError } from '@/lib/chain/errors';
import { sql } from '@/lib/db/sql';
import { workThrough } from '@/lib/worker/lease';
import { parseScaled } from '@/lib/money/decimal';
import { TOKEN_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { OPEN_PAYMENT_STATES } from '@/lib/rules/paymentStates';
import { type Payment, loadPayment, toDecimal } from './payment';
import { drop, hold } from './outcomes';
import { screen } from './screen';
import { forward } from './forward';
import { refund } from './refund';
import { creditTopup } from './topup';

/** Payments (and merchants' top-ups) whose money is still to be moved; a closed payment's gas return is its own job (gasReturn.ts). */
const DUE = sql`payment_state = ANY(${[...OPEN_PAYMENT_STATES]}::"PaymentState"[])`;

/**
 * The payments job (worker/payments.ts): works through due payments, each advanced as far as the
 * chain allows by its step (screen.ts, forward.ts, refund.ts, topup.ts; outcomes.ts closes it),
 * then released (lib/worker/lease.ts).
 */
export async function processPayments(ctx: WorkerContext, max = 50): Promise<number> {
  return workThrough(ctx, 'transactions', DUE, max, async (id) => {
    try {
      await advancePayment(ctx, id);
      // HOLD_AFTER_REFUSALS counts refusals in a row: a round the node did not refuse ends the run (issue 22, case 10).
      await ctx.prisma.transaction.updateMany({ where: { id, retries: { gt: 0 } }, data: { retries: 0 } });
    } catch (err) {
      const message = (err as Error).message.slice(0, 500);
      console.error(`payment ${id}: ${message}`);
      // The node answered and refused to plan the send (an estimate that reverts: USDT frozen at the
      // address, a target that cannot receive). Retried, then held with the reason instead of
      // FORWARDING forever (issue 13, case 9). An unreachable node is only ever retried. The door
      // refuses the hold while a send of the payment's own is in flight (issue 22, case 10).
      const refused = err instanceof ChainResponseError;
      const row = await ctx.prisma.transaction.update({ where: { id }, data: { error: message, ...(refused && { retries: { increment: 1 } }) } });
      if (refused && row.retries >= ctx.settings.HOLD_AFTER_REFUSALS && row.leaseOwner === ctx.owner) {
        await hold(ctx, await loadPayment(ctx, id), `cannot be sent: ${message}`);
      }
      return backoffMs({ baseMs: ctx.settings.WORKER_POLL_MS, capMs: 60_000, jitter: 0 }, row.retries);
    }
  });
}

async function advancePayment(ctx: WorkerContext, id: number): Promise<void> {
  const load = () => loadPayment(ctx, id);
  let p: Payment = await load();
  if (p.type === 'TOPUP') return creditTopup(ctx, p);
  // Seen before finality, then its block was replaced (issue 24): dropped once it can no longer land;
  // until then nothing new is done for it, and sends already out are followed (ensureSend builds none).
  if (!p.solidified && p.blockNumber === null) {
    if (await drop(ctx, p)) return;
    if (p.paymentState !== 'FORWARDING' && p.paymentState !== 'REFUNDING') return;
  }
  if (p.paymentState === 'DETECTED' && p.invoice) {
    // Policies a merchant expects (docs/worker.md, "Held funds"): money the merchant did not ask
    // for in this form is kept for them to decide, not forwarded unseen or counted wrongly (case 8).
    if (p.invoice.status === 'CANCELED') return hold(ctx, p, 'invoice canceled: the merchant decides whether to forward or return it');
    if (!p.invoice.currencies.includes(p.currency)) return hold(ctx, p, `token not accepted: invoice ${p.invoice.id} accepts ${p.invoice.currencies.join(', ')}, not ${p.currency}`);
  }
  // Dust is held before screening: an AML check and a forward would cost more than it is worth, and a
  // flagged sender's dust must not end an open invoice (issue 13, cases 4 and 6).
  if (p.paymentState === 'DETECTED' && p.amountUnits < dustThreshold(ctx, p.currency as Currency)) {
    return hold(ctx, p, `dust: ${toDecimal(p.amountUnits)} ${p.currency} is below the ${p.currency === 'TRX' ? ctx.settings.DUST_THRESHOLD_TRX : ctx.settings.DUST_THRESHOLD_USDT} ${p.currency} threshold; not screened or forwarded`);
  }
  if (p.paymentState === 'DETECTED' || p.paymentState === 'AML_PENDING') {
    await screen(ctx, p);
    p = await load();
  }
  if (p.paymentState === 'FORWARDING') return forward(ctx, p);
  if (p.paymentState === 'REFUNDING') return refund(ctx, p);
}

const dustThreshold = (ctx: WorkerContext, token: Currency) => parseScaled(token === 'TRX' ? ctx.settings.DUST_THRESHOLD_TRX : ctx.settings.DUST_THRESHOLD_USDT, TOKEN_DECIMALS);
