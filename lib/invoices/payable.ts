import type { PublicInvoice } from './publicView';

// Phases of an exact-amount invoice (or a payout's top-up) in which sending more is still asked for.
const PAYABLE_PHASES: readonly PublicInvoice['phase'][] = ['waiting', 'partial'];

/**
 * "Can this invoice still be paid?", the one answer the payment page, its
 * devnet pay button and the devnet-pay route share (docs/payment-page.md).
 * A static address (MULTIPLE) takes any amount for as long as it is ACTIVE;
 * an invoice and a payout's top-up ask for an exact amount before expiry, so
 * only while nothing or part of it has arrived. Pure: the page's client
 * component imports it too.
 */
export function isPayable(view: Pick<PublicInvoice, 'type' | 'status' | 'phase'>): boolean {
  return view.type === 'MULTIPLE' ? view.status === 'ACTIVE' : PAYABLE_PHASES.includes(view.phase);
}
