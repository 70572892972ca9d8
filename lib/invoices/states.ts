import { InvoiceStatus } from '@/lib/generated/prisma/enums';

export const INVOICE_STATUSES = Object.values(InvoiceStatus);

/**
 * The invoice state machine. Spec part 3 only fixes cancel; the rest follows
 * what the worker does. Every change of status goes through
 * `changeInvoiceStatus` (lib/invoices/transitions.ts), which checks this table.
 * A settled invoice never becomes ERROR or AML_FAILED because of a later
 * payment: that payment's outcome is on its transaction (issue 13, case 7).
 */
const TRANSITIONS: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  // Spec part 3: cancel is allowed from any status but ERROR, TIMEOUT, COMPLETED and CANCELED;
  // we allow it only from ACTIVE, and only while no money has arrived for the invoice
  // (CANCEL_BLOCKED in lib/invoices/service.ts).
  ACTIVE: ['COMPLETED', 'OVERPAID', 'UNDERPAID', 'AML_FAILED', 'TIMEOUT', 'CANCELED', 'ERROR'],
  // A payment that lands after expiry is still forwarded, and the invoice then says how it was paid.
  TIMEOUT: ['COMPLETED', 'OVERPAID', 'UNDERPAID', 'AML_FAILED', 'ERROR'],
  UNDERPAID: ['COMPLETED', 'OVERPAID', 'ERROR'],
  COMPLETED: ['OVERPAID'],
  OVERPAID: [],
  AML_FAILED: [],
  CANCELED: [],
  ERROR: [],
};

export function canTransition(from: InvoiceStatus, to: InvoiceStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * Only an open invoice can be canceled: once a payment has been settled
 * (COMPLETED, OVERPAID, UNDERPAID, AML_FAILED) or the invoice has ended
 * (TIMEOUT, ERROR, CANCELED), canceling would rewrite what happened.
 */
export const CANCELABLE: readonly InvoiceStatus[] = (Object.keys(TRANSITIONS) as InvoiceStatus[]).filter((s) => TRANSITIONS[s].includes('CANCELED'));

/** The spec's CANCELED is written CANCELLED in some of its samples; both are read. */
export function normalizeStatus(value: string): string {
  const upper = value.trim().toUpperCase();
  return upper === 'CANCELLED' ? 'CANCELED' : upper;
}

export function parseStatus(value: string): InvoiceStatus | undefined {
  const status = normalizeStatus(value);
  return (INVOICE_STATUSES as string[]).includes(status) ? (status as InvoiceStatus) : undefined;
}
