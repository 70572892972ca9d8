import { TxRejectedError } from '@/lib/chain/errors';
import type { SignedTransfer } from '@/lib/chain/types';
import type { Transaction, TransactionType } from '@/lib/generated/prisma/client';
import type { Currency } from '@/lib/money/tokens';
import type { WorkerContext } from './context';

export interface PlannedSend {
  type: TransactionType;
  from: string;
  to: string;
  amountUnits: bigint;
  currency: Currency;
  signed: SignedTransfer;
}

export type SendOutcome =
  | { state: 'confirmed'; row: Transaction }
  /** The planner decided nothing needs sending. */
  | { state: 'skipped' }
  | { state: 'pending' }
  | { state: 'exhausted'; error: string };

type Payment = Pick<Transaction, 'id' | 'merchantId' | 'invoiceId' | 'eventId'>;

/**
 * What a landed send costs the merchant's activation balance: exactly what the
 * network burned to move the merchant's USDT, i.e. the gas send's own fee and
 * the USDT forward's energy and bandwidth. The gas margin left unburned at the
 * invoice address is not charged; it pays towards the next send from there.
 */
function merchantCharge(row: Transaction, feeSun: bigint): bigint {
  const purpose = row.sendKey?.split(':')[1] ?? '';
  return purpose.startsWith('gas') || (purpose === 'forward' && row.currency === 'USDT') ? feeSun : 0n;
}

export function latestSend(ctx: WorkerContext, paymentId: number, purpose: string): Promise<Transaction | null> {
  return ctx.prisma.transaction.findFirst({ where: { sendKey: { startsWith: `${paymentId}:${purpose}:` } }, orderBy: { id: 'desc' } });
}

const attemptOf = (row: Transaction) => Number(row.sendKey?.split(':')[2] ?? 0);

/**
 * Drives one step of a payment (a purpose such as "forward") to a confirmed
 * send. The signed transaction is stored before it is broadcast, and a new
 * attempt is built only once the previous one is proven dead (expired and in no
 * block, or failed on chain), so a crash at any point never sends twice and
 * never forgets a send. The unique send_key stops two workers building one step twice.
 */
export async function ensureSend(ctx: WorkerContext, payment: Payment, purpose: string, plan: () => Promise<PlannedSend | null>): Promise<SendOutcome> {
  let row = await latestSend(ctx, payment.id, purpose);
  if (!row || row.sendState === 'FAILED') {
    const attempt = row ? attemptOf(row) + 1 : 1;
    if (attempt > ctx.settings.SEND_MAX_ATTEMPTS) return { state: 'exhausted', error: `${purpose}: ${row?.error ?? 'failed'}` };
    const planned = await plan();
    if (!planned) return { state: 'skipped' };
    try {
      row = await ctx.prisma.transaction.create({
        data: {
          merchantId: payment.merchantId,
          invoiceId: payment.invoiceId,
          type: planned.type,
          trnHash: planned.signed.txId,
          chainRef: `${planned.signed.txId}:send`,
          fromAddress: planned.from,
          toAddress: planned.to,
          amountUnits: planned.amountUnits,
          currency: planned.currency,
          eventId: payment.eventId,
          sendState: 'SIGNED',
          signedTx: planned.signed.signedTx as object,
          expiresAt: new Date(planned.signed.expiresAt),
          sendKey: `${payment.id}:${purpose}:${attempt}`,
          sourceId: payment.id,
        },
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'P2002') return { state: 'pending' }; // another worker built this attempt
      throw err;
    }
  }
  return advanceSend(ctx, row);
}

async function markFailed(ctx: WorkerContext, row: Transaction, error: string): Promise<void> {
  await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] } }, data: { sendState: 'FAILED', error } });
}

async function advanceSend(ctx: WorkerContext, row: Transaction): Promise<SendOutcome> {
  if (row.sendState === 'CONFIRMED') return { state: 'confirmed', row };
  const expiresAt = row.expiresAt?.getTime();
  if (row.sendState === 'SIGNED') {
    try {
      await ctx.chain.broadcast(row.signedTx as never);
      await ctx.prisma.transaction.updateMany({ where: { id: row.id, sendState: 'SIGNED' }, data: { sendState: 'BROADCAST', error: null } });
    } catch (err) {
      if (!(err instanceof TxRejectedError)) throw err;
      // A refusal is not proof it never lands (another node may have it); only expiry is.
      const status = await ctx.chain.getTransactionStatus(row.trnHash, expiresAt);
      if (status.status === 'unknown' && status.expired) await markFailed(ctx, row, `${err.code}: ${err.nodeMessage}`);
      else await ctx.prisma.transaction.update({ where: { id: row.id }, data: { error: `${err.code}: ${err.nodeMessage}` } });
      return { state: 'pending' };
    }
  }
  const status = await ctx.chain.getTransactionStatus(row.trnHash, expiresAt);
  switch (status.status) {
    case 'confirmed': {
      const confirmed = await ctx.prisma.$transaction(async (tx) => {
        const { count } = await tx.transaction.updateMany({
          where: { id: row.id, sendState: { in: ['SIGNED', 'BROADCAST'] } },
          data: { sendState: 'CONFIRMED', feeSun: status.feeSun, blockNumber: status.blockNumber, error: null },
        });
        const charge = count === 1 ? merchantCharge(row, status.feeSun) : 0n;
        if (charge > 0n) await tx.merchant.update({ where: { id: row.merchantId }, data: { activationBalanceSun: { decrement: charge } } });
        return tx.transaction.findUniqueOrThrow({ where: { id: row.id } });
      });
      return { state: 'confirmed', row: confirmed };
    }
    case 'failed':
      // Landed but the contract call failed: nothing moved, so another attempt is safe once final.
      if (status.solidified) await markFailed(ctx, row, `failed on chain: ${status.result ?? ''} ${status.message ?? ''}`.trim());
      return { state: 'pending' };
    case 'unknown':
      if (status.expired) await markFailed(ctx, row, 'expired without entering a block');
      // The node may have dropped it; sending the same signed bytes again is harmless.
      else await ctx.chain.broadcast(row.signedTx as never).catch(() => undefined);
      return { state: 'pending' };
    default:
      return { state: 'pending' };
  }
}
