/**
 * Headers every answer carries (issue 14, finding 7): no page may be framed
 * (clickjacking of the signed-in settings page), no answer content-sniffed, and
 * no full URL sent to other sites in Referer. Only `frame-ancestors` is set in
 * the CSP: a script policy would have to allow Next's inline bootstrap.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/**
 * The payment page's URL carries the invoice's link key (docs/payment-page.md):
 * it sends no Referer at all, not even to the merchant it redirects to.
 */
export function securityHeadersFor(target: string): Record<string, string> {
  return target.startsWith('/payment/') ? { ...SECURITY_HEADERS, 'referrer-policy': 'no-referrer' } : SECURITY_HEADERS;
}
