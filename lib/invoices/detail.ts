import type { PrismaClient } from '@/lib/generated/prisma/client';
import { MAX_TRANSACTION_PAGE } from '@/lib/transactions/schemas';
import { dashboardTransactionRows } from '@/lib/transactions/releases';
import { listTransactions } from '@/lib/transactions/service';
import { listDeliveries } from '@/lib/webhooks/deliveryLog';
import { deliveryJson } from '@/lib/webhooks/serialize';
import { invoiceJson } from './serialize';
import { getInvoice, isCancelable, type InvoiceOwner } from './service';

// A static-address invoice can collect many payments; the detail shows the latest, the
// transactions page has them all.
const LATEST = { limit: MAX_TRANSACTION_PAGE, offset: 0 };

/**
 * The dashboard's invoice detail (docs/dashboard.md): one of the merchant's
 * invoices with everything that happened to it, the latest payments and sends
 * and the latest webhook deliveries, each in its API shape.
 */
export async function invoiceDetail(prisma: PrismaClient, merchant: InvoiceOwner, invoiceId: number) {
  const merchantId = merchant.id;
  const invoice = await getInvoice(prisma, merchant, invoiceId);
  const [transactions, deliveries, cancelable] = await Promise.all([
    listTransactions(prisma, merchantId, { ...LATEST, invoice_id: invoice.id, ordering: '-created_at' }, LATEST, 'dashboard'),
    listDeliveries(prisma, merchantId, { invoice_id: invoice.id }, LATEST),
    isCancelable(prisma, invoice),
  ]);
  return {
    invoice: invoiceJson(invoice),
    /** The token `invoice.cost` is in (the API's invoice has no field for it; a payout's is its `currency`); null before any fee. */
    cost_currency: invoice.costCurrency,
    /** Whether Cancel is offered: the API's cancel rule (status and money received), not the status alone. */
    cancelable,
    transactions: { count: transactions.count, results: await dashboardTransactionRows(prisma, transactions.rows) },
    deliveries: { count: deliveries.count, results: deliveries.rows.map(deliveryJson) },
  };
}

export type InvoiceDetailJson = Awaited<ReturnType<typeof invoiceDetail>>;
