import type { PrismaClient } from '@/lib/generated/prisma/client';
import { changeInvoiceStatus } from '@/lib/invoices/transitions';
import { scannedUntil } from './scan';
import { OPEN_PAYMENT_STATES } from '@/lib/rules/paymentStates';

const BATCH = 500;

/**
 * Closes SINGLE invoices past expired_at: TIMEOUT when nothing arrived,
 * UNDERPAID when part did. "Past" is by the scanned chain time, so every block
 * up to expired_at has been searched for payments first; an invoice with a
 * payment still being processed waits for it. A later payment is still
 * detected and forwarded (TIMEOUT can move on to COMPLETED, OVERPAID or UNDERPAID).
 */
export async function expireInvoices(prisma: PrismaClient): Promise<number> {
  const now = await scannedUntil(prisma);
  const due = await prisma.invoice.findMany({
    where: {
      type: 'SINGLE',
      status: 'ACTIVE',
      expiredAt: { lt: now },
      transactions: { none: { type: 'PAYMENT', paymentState: { in: [...OPEN_PAYMENT_STATES] } } },
    },
    select: { id: true, status: true },
    take: BATCH,
  });
  // What arrived is read only for invoices that are due: a relation in the select is read even for
  // no rows (`WHERE invoice_id IN (NULL)`), and this runs every idle round of every worker (issue 41).
  if (due.length === 0) return 0;
  const received = await prisma.invoiceCurrency.findMany({ where: { invoiceId: { in: due.map((i) => i.id) }, receivedUnits: { gt: 0n } }, select: { invoiceId: true } });
  const partlyPaid = new Set(received.map((a) => a.invoiceId));
  let changed = 0;
  for (const invoice of due) {
    const next = partlyPaid.has(invoice.id) ? 'UNDERPAID' : 'TIMEOUT';
    if (await prisma.$transaction((tx) => changeInvoiceStatus(tx, invoice, next))) changed++;
  }
  return changed;
}
