/**
 * Standard Webhooks headers signed by the `standardwebhooks` library (issue 39) are, byte for byte,
 * what the hand-written HMAC signed before (lib/webhooks/signature.ts on main at 1f1e127): nothing a
 * merchant's receiver sees changes. No database, no server: fixed secrets, ids, timestamps, bodies.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders, standardWebhooksSecret, verifyWebhook } from '@/lib/webhooks/signature';

const TIMESTAMP = 1767225600; // 2026-01-01T00:00:00Z
const BODY = JSON.stringify({ id: 42, status: 'COMPLETED', description: 'Café — 10 ₮ 🧾', amount: 10.5 });

/** The Standard Webhooks signature as the code before issue 39 wrote it, by hand. */
const handSigned = (secret: string, id: string, timestamp: number, body: string) =>
  `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

describe('webhook signatures: the library signs what the hand-written HMAC signed', () => {
  it('gives a delivery the same four headers, to the byte, as before', () => {
    // Printed by signatureHeaders on main at 1f1e127, before the library signed.
    assert.deepEqual(signatureHeaders('fQ3v_8n2mKx7Lr0pT9wZc4yB1uJ6hA5sD-eG2iO3kVY', 'invoice:42:COMPLETED', BODY, TIMESTAMP), {
      'x-webhook-signature': 't=1767225600,v1=15c284143b5f39a8c2118ffecd6c6983cf36376e7123ad4948f26b5d20a0bb5c',
      'webhook-id': 'invoice:42:COMPLETED',
      'webhook-timestamp': '1767225600',
      'webhook-signature': 'v1,kNvhblwy5i1mAQULDTPv5lqjR9pt5oEDcdoWMlGbewg=',
    });
  });

  it('keys the HMAC with the UTF-8 bytes of the secret, as before, whatever its characters', () => {
    // Also printed on main at 1f1e127. The library's "raw" key form would take one byte per UTF-16
    // unit instead, and differ here: the secret goes in as whsec_<base64 of its UTF-8 bytes>.
    assert.equal(signatureHeaders('pässwörd ✓', 'evt-ü', BODY, TIMESTAMP)['webhook-signature'], 'v1,5Q68muTzPjT5VrV2AFNcMEKbwsZElFU8ZSuCBxecgrs=');
  });

  it('agrees with the hand-written HMAC on other ids, timestamps and bodies', () => {
    const secret = 'Zm9vYmFyYmF6cXV4X3NlY3JldF9rZXlfMzJieXRlcw';
    for (const [id, timestamp, body] of [
      ['invoice:1:payment:7', 0, ''],
      ['invoice:9999999:EXPIRED', 2_000_000_000, '{"a":"\\u0000","b":"line\\nbreak"}'],
      ['held:abc', TIMESTAMP + 1, 'x'.repeat(70_000)],
    ] as const) {
      assert.equal(signatureHeaders(secret, id, body, timestamp)['webhook-signature'], handSigned(secret, id, timestamp, body), `${id} at ${timestamp}`);
    }
  });

  it('is verified by the standardwebhooks library with the secret in the form the dashboard shows, and by verifyWebhook', () => {
    const secret = 'fQ3v_8n2mKx7Lr0pT9wZc4yB1uJ6hA5sD-eG2iO3kVY';
    const now = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders(secret, 'invoice:42:COMPLETED', BODY, now);
    assert.deepEqual(new Webhook(standardWebhooksSecret(secret)).verify(BODY, headers), JSON.parse(BODY));
    assert.throws(() => new Webhook(standardWebhooksSecret(secret)).verify(BODY.replace('42', '43'), headers));
    assert.ok(verifyWebhook(secret, BODY, headers['x-webhook-signature']!));
  });
});
