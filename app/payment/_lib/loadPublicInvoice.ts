import { db } from '@/lib/db/client';
import { parseId } from '@/lib/http/request';
import { publicInvoiceView, type PublicInvoice } from '@/lib/invoices/publicView';
import { unconfirmedBalances } from './unconfirmedBalances';

const MAX_PAYMENTS = 50;

/**
 * The customer's view of invoice `idText`, or null when there is no such
 * payment page (unknown or malformed id, or a mass payout, whose top-up
 * address is the merchant's business, not a customer's).
 */
export async function loadPublicInvoice(idText: string): Promise<PublicInvoice | null> {
  const id = parseId(idText);
  if (id === null) return null;
  const invoice = await db().invoice.findUnique({
    where: { id },
    select: {
      id: true,
      type: true,
      status: true,
      amountUsd: true,
      currencies: true,
      orderId: true,
      address: true,
      redirectUrl: true,
      description: true,
      expiredAt: true,
      amounts: { select: { currency: true, dueUnits: true, receivedUnits: true } },
      transactions: {
        where: { type: 'PAYMENT' },
        select: { trnHash: true, currency: true, amountUnits: true, paymentState: true, createdAt: true },
        orderBy: { id: 'desc' },
        // A static address can collect payments for years; the page shows the latest.
        take: MAX_PAYMENTS,
      },
    },
  });
  if (!invoice || invoice.type === 'MULTIPLE_TRANSFER') return null;
  const { transactions: payments, ...rest } = invoice;
  // Only an open single invoice with nothing booked yet needs the node: after that the worker's rows say more.
  const readChain = invoice.type === 'SINGLE' && invoice.status === 'ACTIVE' && payments.length === 0;
  const unconfirmed = readChain ? await unconfirmedBalances(invoice.address, invoice.currencies) : null;
  return publicInvoiceView({ invoice: rest, payments, unconfirmed, now: new Date() });
}
