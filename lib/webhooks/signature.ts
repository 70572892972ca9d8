import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SIGNATURE_HEADER = 'x-webhook-signature';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`: the timestamp is
 * signed too, so a captured delivery cannot be replayed later as fresh.
 */
export function signWebhook(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

/** What a merchant's receiver does (also documented in docs/webhooks.md). */
export function verifyWebhook(secret: string, body: string, header: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!parts.v1 || !Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, body, t).split('v1=')[1] ?? '', 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The merchant's secret in the `whsec_` form the `standardwebhooks` libraries read. */
export const standardWebhooksSecret = (secret: string) => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

/**
 * Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp`
 * and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
 * signed by the `standardwebhooks` library (the standard's own, which the tests
 * verify with; until issue 39 this was an HMAC written here). The HMAC key is the same as for X-Webhook-Signature: the UTF-8 bytes of the
 * merchant's secret, handed to the library in its `whsec_` form, the very
 * string the dashboard shows the merchant (`standardWebhooksSecret`).
 */
function standardWebhookHeaders(secret: string, messageId: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = new Webhook(standardWebhooksSecret(secret)).sign(messageId, new Date(timestamp * 1000), body);
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

/** Every signature header of one delivery, over one timestamp: ours and Standard Webhooks' (docs/webhooks.md). */
export function signatureHeaders(secret: string, eventId: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { [SIGNATURE_HEADER]: signWebhook(secret, body, timestamp), ...standardWebhookHeaders(secret, eventId, body, timestamp) };
}
