import { invoiceAccount } from '@/lib/merchants/accounts';
import { Prisma, type Invoice, type InvoiceCurrency, type Merchant, type Transaction } from '@/lib/generated/prisma/client';
import { toJsonNumber } from '@/lib/money/decimal';
import { TOKEN_DECIMALS } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { changePaymentState, type PaymentMove } from './states';

/** What every step of a payment works on (lib/payments/process.ts dispatches the steps). */
/** A payment always belongs to a merchant (only the energy pool's own operations have none). */
export type Payment = Transaction & { merchantId: number; invoice: (Invoice & { amounts: InvoiceCurrency[] }) | null; merchant: Merchant };

export const loadPayment = (ctx: WorkerContext, id: number): Promise<Payment> =>
  ctx.prisma.transaction.findUniqueOrThrow({ where: { id }, include: { invoice: { include: { amounts: true } }, merchant: true } }) as Promise<Payment>;

export const toDecimal = (units: bigint) => String(toJsonNumber(units, TOKEN_DECIMALS));

/** Moves the payment through the one door (lib/payments/states.ts), only while this worker still holds it. */
export function move(tx: Prisma.TransactionClient, ctx: WorkerContext, p: Payment, m: PaymentMove): Promise<boolean> {
  return changePaymentState(tx, p, { ...m, leaseOwner: ctx.owner });
}

export function invoiceKey(p: Payment): { address: string; privateKey: string } {
  if (!p.invoice) throw new Error('payment without invoice');
  return invoiceAccount(p.invoice);
}
