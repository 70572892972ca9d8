import { otherMethods } from '@/lib/http/route';
import { dashboardRoute } from '@/lib/http/dashboardRoute';
import { idParam } from '@/lib/http/request';
import { db } from '@/lib/db/client';
import { invoiceJson } from '@/lib/invoices/serialize';
import { getInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { MAX_TRANSACTION_PAGE } from '@/lib/transactions/schemas';
import { transactionJson } from '@/lib/transactions/serialize';
import { listTransactions } from '@/lib/transactions/service';
import { deliveryJson, listDeliveries } from '@/lib/webhooks/deliveryLog';

// A static-address invoice can collect many payments; the detail shows the latest, the
// transactions page has them all.
const LATEST = { limit: MAX_TRANSACTION_PAGE, offset: 0 };

/** One invoice with everything that happened to it: payments, sends and webhooks. */
export const GET = dashboardRoute<{ id: string }>(async ({ params, merchant }) => {
  const prisma = db();
  const invoice = await getInvoice(prisma, merchant.id, idParam(params.id, INVOICE_NOT_FOUND));
  const [transactions, deliveries] = await Promise.all([
    listTransactions(prisma, merchant.id, { ...LATEST, invoice_id: invoice.id, ordering: '-created_at' }, LATEST),
    listDeliveries(prisma, merchant.id, { invoice_id: invoice.id }, LATEST),
  ]);
  return {
    invoice: invoiceJson(invoice),
    transactions: { count: transactions.count, results: transactions.rows.map(transactionJson) },
    deliveries: { count: deliveries.count, results: deliveries.rows.map(deliveryJson) },
  };
});

// Any other method: a JSON 405, not Next's empty one.
export const { POST, PUT, PATCH, DELETE } = otherMethods(['GET']);
