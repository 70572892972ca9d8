import { config } from '@/lib/config';
import { isLinkKey, linkKeyWith } from '@/lib/invoices/linkKey';

/**
 * The key in a refund's claim link (`/payment/refund/<id>?k=<key>`): refund ids are sequential, and the page
 * lets whoever holds the link say where the money goes, so the id alone must open nothing. An HMAC
 * of the id under the master key, as a payment link's key is (lib/invoices/linkKey.ts), with a
 * label of its own so a payment link's key never opens a refund with the same number.
 */
const LABEL = 'refund-claim:v1:';

export function refundClaimKey(id: number): string {
  return linkKeyWith(config().MASTER_KEY, id, LABEL);
}

export function isRefundClaimKey(id: number, given: string | null | undefined): boolean {
  return isLinkKey(id, given, LABEL);
}
