import type { PaymentState } from '@/lib/generated/prisma/client';

/**
 * The payment state machine (docs/worker.md, "A payment's life"). Every change of a
 * payment's (or a merchant top-up's) `payment_state` goes through `changePaymentState`,
 * which checks this table (lib/payments/states.ts), as `changeInvoiceStatus` does for invoices.
 * The table is a rule below every folder that reads it (the ledger's proof, the energy pool,
 * invoices), so none of them imports the payments engine.
 */
export const PAYMENT_TRANSITIONS: Record<PaymentState, readonly PaymentState[]> = {
  // Screened when the merchant has AML on; held before screening (dust, a canceled invoice,
  // a token not accepted); a merchant's top-up is credited at once (SETTLED). Seen before
  // finality, a payment whose block a reorganisation replaced and whose transaction can no
  // longer land is DROPPED from any open state (issue 24).
  DETECTED: ['AML_PENDING', 'FORWARDING', 'HELD', 'SETTLED', 'DROPPED'],
  // Passed, failed (returned to the sender), or held (the provider refused the check).
  AML_PENDING: ['FORWARDING', 'REFUNDING', 'HELD', 'DROPPED'],
  FORWARDING: ['SETTLED', 'HELD', 'FAILED', 'DROPPED'],
  REFUNDING: ['REFUNDED', 'HELD', 'FAILED', 'DROPPED'],
  // Released by the merchant: screened first, forwarded, or returned to an address they name.
  HELD: ['AML_PENDING', 'FORWARDING', 'REFUNDING'],
  // An operator's retry (npm run payment:retry); held again instead when it was released into a
  // merchant's refund that no longer stands (its payout canceled or timed out: docs/refunds.md).
  FAILED: ['FORWARDING', 'REFUNDING', 'HELD'],
  SETTLED: [],
  REFUNDED: [],
  DROPPED: [],
};

/** States in which the worker still moves the payment's money. */
export const OPEN_PAYMENT_STATES = ['DETECTED', 'AML_PENDING', 'FORWARDING', 'REFUNDING'] as const satisfies readonly PaymentState[];
/** States whose money has been fully accounted for: forwarded, returned, or kept at the address (held or failed). */
export const CLOSED_PAYMENT_STATES = ['SETTLED', 'REFUNDED', 'FAILED', 'HELD'] as const satisfies readonly PaymentState[];
export const isOpenPaymentState = (s: PaymentState | null): boolean => s !== null && (OPEN_PAYMENT_STATES as readonly PaymentState[]).includes(s);

export function canMovePayment(from: PaymentState, to: PaymentState): boolean {
  return PAYMENT_TRANSITIONS[from].includes(to);
}

/** The state table as a mermaid diagram; docs/worker.md shows exactly this (test/chain/payment-door.test.ts). */
export function paymentStateDiagram(): string {
  const lines = ['stateDiagram-v2', '  [*] --> DETECTED'];
  for (const [from, tos] of Object.entries(PAYMENT_TRANSITIONS)) for (const to of tos) lines.push(`  ${from} --> ${to}`);
  for (const s of ['SETTLED', 'REFUNDED', 'DROPPED']) lines.push(`  ${s} --> [*]`);
  return lines.join('\n');
}
