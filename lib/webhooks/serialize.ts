import type { WebhookDelivery } from '@/lib/generated/prisma/client';
import { isoMicro } from '@/lib/time';

/** One row of the dashboard's delivery log. */
export function deliveryJson(d: WebhookDelivery) {
  return {
    id: d.id,
    invoice: d.invoiceId,
    url: d.url,
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
