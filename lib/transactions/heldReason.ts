/**
 * Why a payment is held, as a code anyone may be shown (never the worker's own words, which may
 * name internals): the invoice was canceled, the token is not one it accepts, the amount is too
 * small to forward, or something else the merchant has to look at. The payment page words it for
 * the customer, the e-mail and the "payment.held" webhook for the merchant (issue 26).
 */
export type HeldReason = 'canceled' | 'token' | 'dust' | 'other';

/** The worker's reasons (lib/payments: process.ts, forward.ts) by their fixed openings. */
export function heldReasonCode(workerReason: string | null | undefined): HeldReason {
  const reason = workerReason ?? '';
  if (reason.startsWith('invoice canceled')) return 'canceled';
  if (reason.startsWith('token not accepted')) return 'token';
  if (reason.startsWith('dust') || reason.startsWith('uneconomic')) return 'dust';
  return 'other';
}
