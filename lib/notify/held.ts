import { publicBaseUrl } from '@/lib/config';
import type { Prisma, Transaction } from '@/lib/generated/prisma/client';
import { tokenAmountText } from '@/lib/money/tokens';
import { heldReasonCode, type HeldReason } from '@/lib/transactions/heldReason';
import { enqueuePaymentHeldWebhook } from '@/lib/webhooks/outbox';
import type { Mail } from './mail';
import { queueMail } from './outbox';

/** Why the money waits, in the merchant's terms; the worker's own words follow in the mail. */
const WHY: Record<HeldReason, string> = {
  canceled: 'it arrived after the invoice was canceled',
  token: 'the invoice does not accept that token',
  dust: 'the amount is too small to forward automatically',
  other: 'it could not be forwarded automatically',
};

type HeldPayment = Transaction & { merchant: { email: string } | null; invoice: { id: number; orderId: string | null } | null };

/** The e-mail of a held payment: how much, on which invoice, why, and where to forward or return it. */
export function heldMail(payment: HeldPayment, reason: string): Mail {
  const amount = `${tokenAmountText(payment.amountUnits)} ${payment.currency}`;
  const invoice = payment.invoice;
  const where = invoice ? `invoice #${invoice.id}${invoice.orderId ? ` (order ${invoice.orderId})` : ''}` : 'one of your addresses';
  const page = invoice ? `${publicBaseUrl()}/dashboard/invoices/${invoice.id}` : `${publicBaseUrl()}/dashboard/transactions`;
  return {
    to: payment.merchant?.email ?? '',
    subject: `Payment held for you: ${amount} on ${invoice ? `invoice #${invoice.id}` : 'your account'}`,
    text: [
      `A payment of ${amount} arrived on ${where} and is held at its address: ${WHY[heldReasonCode(reason)]}.`,
      'It stays there, and is not counted as paid, until you forward it to your wallet or return it to an address you choose:',
      page,
      '',
      `Transaction: ${payment.trnHash}`,
      `From:        ${payment.fromAddress}`,
      `Reason:      ${reason}`,
      '',
      'Your customer\'s payment page says the payment is held for you to forward or return.',
    ].join('\n'),
  };
}

/**
 * Tells the merchant the moment a payment is held (issue 26): an e-mail where SMTP is configured,
 * and the signed "payment.held" webhook if they opted in. Called by the payment door
 * (`changePaymentState`, lib/payments/states.ts) on every move into HELD, inside its transaction,
 * after the move: both are queued if and only if the hold commits, and the worker sends them.
 * Each hold of a payment is its own event (`payment:<id>:held:<n>`): one released and held again
 * is told again.
 */
export async function notifyHeld(tx: Prisma.TransactionClient, p: Pick<Transaction, 'id'>, reason: string): Promise<void> {
  const payment = await tx.transaction.findUniqueOrThrow({ where: { id: p.id }, include: { merchant: { select: { email: true } }, invoice: { select: { id: true, orderId: true } } } });
  if (payment.merchantId === null) return;
  const prefix = `payment:${payment.id}:held:`;
  const webhooks = await tx.webhookDelivery.count({ where: { eventKey: { startsWith: prefix } } });
  const mails = await tx.mailOutbox.count({ where: { eventKey: { startsWith: prefix } } });
  const eventKey = `${prefix}${Math.max(webhooks, mails) + 1}`;
  // The row's own reason when the caller stored one with the move; else the door's.
  const why = payment.heldReason ?? reason;
  await enqueuePaymentHeldWebhook(tx, { ...payment, heldReason: why }, eventKey);
  await queueMail(tx, payment.merchantId, eventKey, heldMail(payment, why));
}
