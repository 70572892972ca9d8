import type { WebhookDelivery } from '@/lib/generated/prisma/client';
import { isoMicro } from '@/lib/time';

/** What a delivery reports: an invoice webhook of spec 6, or an opt-in event, "payment.held" or "refund.*" (its payload's `event` says so). */
function eventOf(payload: WebhookDelivery['payload']): string {
  return payload !== null && typeof payload === 'object' && !Array.isArray(payload) && typeof payload.event === 'string' ? payload.event : 'invoice';
}

/** An invoice webhook's invoice status as it was sent (ACTIVE: a static address's payment event); null for other events. */
function invoiceStatusOf(payload: WebhookDelivery['payload']): string | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || payload.event !== undefined) return null;
  return typeof payload.status === 'string' ? payload.status : null;
}

/** One row of the dashboard's delivery log. */
export function deliveryJson(d: WebhookDelivery) {
  return {
    id: d.id,
    invoice: d.invoiceId,
    url: d.url,
    event: eventOf(d.payload),
    /** For an invoice webhook, the status it reported (issue 38: the log did not say what each delivery was about). */
    invoice_status: invoiceStatusOf(d.payload),
    status: d.status,
    response_status: d.responseStatus,
    latency_ms: d.latencyMs,
    error: d.error,
    resend_of: d.resendOfId,
    /** With retries on: the chain's first attempt, and this attempt's number (1 for a first attempt). */
    retry_of: d.retryOfId,
    attempt: d.attempt,
    /** A queued retry is not sent before this. */
    not_before: d.notBefore && isoMicro(d.notBefore),
    created_at: isoMicro(d.createdAt),
    sent_at: d.sentAt && isoMicro(d.sentAt),
  };
}

export type DeliveryJson = ReturnType<typeof deliveryJson>;

/**
 * One delivery opened in the log (issue 26): its row, the body it sent (the payload, exactly as
 * signed and posted) and the start of what the receiver answered. Fetched on request, so the log
 * itself stays small.
 */
export function deliveryDetailJson(d: WebhookDelivery, webhookId: string) {
  return {
    ...deliveryJson(d),
    /** The Standard Webhooks `webhook-id` every attempt and resend of this event carries. */
    webhook_id: webhookId,
    payload: d.payload,
    /** At most 1,000 characters of the receiver's answer; null before an answer (or with none). */
    response_body: d.responseBody,
  };
}

export type DeliveryDetailJson = ReturnType<typeof deliveryDetailJson>;
