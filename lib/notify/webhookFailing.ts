import { config, publicBaseUrl } from '@/lib/config';
import type { PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { failingEndpoints, type FailingEndpoint } from '@/lib/webhooks/health';
import type { Mail } from './mail';
import { queueMail } from './outbox';

/** Failed deliveries in a row to one URL after which the merchant is e-mailed (issue 38: a failing endpoint was silent). */
export const FAILING_MAIL_AFTER = 3;

/** The e-mail about an endpoint that keeps failing: where, since when, its last answer, and what to do. */
export function failingEndpointMail(email: string, endpoint: FailingEndpoint, retries: boolean): Mail {
  const answer = endpoint.lastStatus !== null ? `HTTP ${endpoint.lastStatus}` : (endpoint.lastError ?? 'no answer');
  return {
    to: email,
    subject: `Webhook deliveries to ${endpoint.url} are failing`,
    text: [
      `The last ${endpoint.failedInRow} webhook deliveries to ${endpoint.url} failed, the first at ${endpoint.since.toISOString()}. The last answer: ${answer}.`,
      'Your shop may not know about invoices paid or changed meanwhile.',
      retries
        ? 'Retries are on: each failed event is sent again for up to three days.'
        : 'Retries are off, so a failed event is not sent again: resend them from the delivery log once your endpoint works, and consider turning on "Retry failed webhooks" in Settings.',
      `${publicBaseUrl()}/dashboard/webhooks`,
      '',
      'This is sent once for a run of failures: the next only after a delivery to this URL is accepted and failures start again.',
    ].join('\n'),
  };
}

/**
 * Called by the webhook senders after a delivery failed (lib/webhooks/deliver.ts, `onFailed`): when
 * its URL has now failed FAILING_MAIL_AFTER times or more in a row, queues one e-mail for that run of
 * failures (keyed by its first failed delivery, so a later failure, or a worker that died before
 * queuing it, queues the same one once). Returns whether a mail was queued now.
 */
export async function notifyFailingEndpoint(prisma: PrismaClient, delivery: Pick<WebhookDelivery, 'merchantId' | 'url'>): Promise<boolean> {
  // Without SMTP nothing would be queued (queueMail): not even asked.
  if (!config().SMTP_URL) return false;
  const endpoint = (await failingEndpoints(prisma, delivery.merchantId)).find((e) => e.url === delivery.url);
  if (!endpoint || endpoint.failedInRow < FAILING_MAIL_AFTER) return false;
  const merchant = await prisma.merchant.findUnique({ where: { id: delivery.merchantId }, select: { email: true, webhookRetries: true } });
  if (!merchant) return false;
  return prisma.$transaction((tx) => queueMail(tx, delivery.merchantId, `webhook:${endpoint.firstId}:failing`, failingEndpointMail(merchant.email, endpoint, merchant.webhookRetries)));
}
