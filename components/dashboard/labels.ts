/**
 * What the dashboard shows for the API's codes (issue 26): one map per kind, so a
 * status or type reads the same on every page. The dashboard is English only (lib/i18n
 * serves the payment page); filters keep sending the codes, and a badge keeps the code
 * in its title for merchants matching what the API returns.
 */
export const INVOICE_STATUS_LABELS: Record<string, string> = {
  ACTIVE: 'Active',
  COMPLETED: 'Completed',
  CANCELED: 'Canceled',
  TIMEOUT: 'Expired',
  ERROR: 'Error',
  AML_FAILED: 'Failed AML check',
  OVERPAID: 'Overpaid',
  UNDERPAID: 'Underpaid',
};

export const INVOICE_TYPE_LABELS: Record<string, string> = {
  SINGLE: 'Single payment',
  MULTIPLE: 'Static address',
  MULTIPLE_TRANSFER: 'Mass payout',
};

// docs/api.md: TRANSFER is any send out (forward, refund, payout); ACTIVATION TRX moved for network costs.
export const TRANSACTION_TYPE_LABELS: Record<string, string> = {
  PAYMENT: 'Payment',
  TRANSFER: 'Transfer out',
  REFUND: 'Refund',
  TOPUP: 'Top-up',
  ACTIVATION: 'Network fee',
  DELEGATE: 'Energy lent',
  UNDELEGATE: 'Energy returned',
  STAKE: 'Stake',
  UNSTAKE: 'Unstake',
  WITHDRAW: 'Stake withdrawn',
};

/** The steps of ours behind a payment, forward, refund or payout (its "Network steps", issue 38 item 4). */
const STEP_LABELS: Record<string, string> = {
  FORWARD_GAS: 'Gas sent',
  REFUND_GAS: 'Gas sent',
  PAYOUT_GAS: 'Gas sent',
  PAYOUT_RETURN_GAS: 'Gas sent',
  GAS_RETURN: 'Gas returned',
  FORWARD_ENERGY: 'Energy lent',
  REFUND_ENERGY: 'Energy lent',
  PAYOUT_ENERGY: 'Energy lent',
  PAYOUT_RETURN_ENERGY: 'Energy lent',
  FORWARD_BANDWIDTH: 'Bandwidth lent',
  REFUND_BANDWIDTH: 'Bandwidth lent',
  PAYOUT_BANDWIDTH: 'Bandwidth lent',
  ENERGY_RECLAIM: 'Lending taken back',
};

/** A row of a group's plumbing: its step in words, or else its type (another target of the same payout). */
export function stepLabel(t: { send_purpose: string | null; type: string }): string {
  return (t.send_purpose !== null && STEP_LABELS[t.send_purpose]) || labelOf(TRANSACTION_TYPE_LABELS, t.type);
}

/**
 * The types a merchant's transactions can have, for the Type filter: the pool's own operations
 * (STAKE, UNSTAKE, WITHDRAW) belong to no merchant, so offering them only ever found nothing (issue 38).
 */
export const MERCHANT_TRANSACTION_TYPES = ['PAYMENT', 'TRANSFER', 'REFUND', 'TOPUP', 'ACTIVATION', 'DELEGATE', 'UNDELEGATE'] as const;

export const DELIVERY_STATUS_LABELS: Record<string, string> = {
  PENDING: 'Queued',
  SENDING: 'Sending',
  DELIVERED: 'Delivered',
  FAILED: 'Failed',
};

export const AML_STATUS_LABELS: Record<string, string> = {
  SUCCESS: 'Passed',
  FAILED: 'Failed',
  TIMEOUT: 'Provider timed out',
  ERROR: 'Not checked (error)',
};

/** A refund's status (docs/refunds.md). */
export const REFUND_STATUS_LABELS: Record<string, string> = {
  WAITING_ADDRESS: 'Waiting for the customer\'s address',
  WAITING_FUNDS: 'Waiting for your top-up',
  SENDING: 'Sending',
  SENT: 'Sent',
  FAILED: 'Failed',
  CANCELED: 'Canceled',
};

export type LabelKind = 'invoice' | 'delivery' | 'aml' | 'refund';

const BY_KIND: Record<LabelKind, Record<string, string>> = { invoice: INVOICE_STATUS_LABELS, delivery: DELIVERY_STATUS_LABELS, aml: AML_STATUS_LABELS, refund: REFUND_STATUS_LABELS };

/** The human label of a code; an unknown code (a newer server) is shown as it is. */
export function labelOf(labels: Record<string, string>, code: string): string {
  return labels[code] ?? code;
}

export function statusLabel(kind: LabelKind, code: string): string {
  return labelOf(BY_KIND[kind], code);
}
