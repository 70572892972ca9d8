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
    created_at: isoMicro(d.createdAt),
    sent_at: d.sentAt && isoMicro(d.sentAt),
  };
}

export type DeliveryJson = ReturnType<typeof deliveryJson>;
