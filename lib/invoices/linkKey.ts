import { createHmac, timingSafeEqual } from 'node:crypto';
import { config, paymentPageBase } from '@/lib/config';

/**
 * The key in an invoice's paymentURL (`/payment/<id>?k=<key>`, issue 14,
 * finding 4). Invoice ids are sequential, so the id alone must not show what
 * the merchant put on the invoice (order id, description, payment txids, the
 * redirect_url that may hold a receipt token). The key is an HMAC of the id
 * under the master key: nothing to store, unguessable (132 bits), and the
 * same every time the invoice is serialised.
 */
const LABEL = 'payment-link:v1:';
const LENGTH = 22;

/** The key under a given master key (tests and tools that hold the key but not this process's config). */
export function linkKeyWith(masterHex: string, id: number, label = LABEL): string {
  return createHmac('sha256', Buffer.from(masterHex, 'hex')).update(`${label}${id}`).digest('base64url').slice(0, LENGTH);
}

export function paymentLinkKey(id: number): string {
  return linkKeyWith(config().MASTER_KEY, id);
}

/** The paymentURL of an invoice: the page with the key that opens its full view. */
export function paymentUrl(id: number): string {
  return `${paymentPageBase()}/payment/${id}?k=${paymentLinkKey(id)}`;
}

/** True when `given` is the invoice's link key, under the current master key or one kept during a rotation. */
export function isPaymentLinkKey(id: number, given: string | null | undefined): boolean {
  return isLinkKey(id, given, LABEL);
}

/** True when `given` is the key of `label`'s link to `id` (a payment page's, a refund's claim page's: lib/refunds/claimKey.ts). */
export function isLinkKey(id: number, given: string | null | undefined, label: string): boolean {
  if (typeof given !== 'string' || given.length !== LENGTH) return false;
  const c = config();
  const masters = [c.MASTER_KEY, ...(c.MASTER_KEYS_PREVIOUS ?? '').split(',').filter(Boolean)];
  const a = Buffer.from(given);
  return masters.some((m) => {
    const b = Buffer.from(linkKeyWith(m, id, label));
    return a.length === b.length && timingSafeEqual(a, b);
  });
}
