import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { WorkerJob } from '@/lib/worker/job';
import { deliverNext, type DeliveryOptions } from './deliver';

export { MAX_SENDING_PER_MERCHANT, FAST_RECEIVER_MS } from './deliver';

/** Senders that serve every merchant (each merchant at most MAX_SENDING_PER_MERCHANT of them at once). */
export const SHARED_SENDERS = 4;
/**
 * Senders kept for merchants whose receivers answer quickly (issue 27, finding 4). Any number of
 * accounts with slow receivers (sign-up is open) can fill the shared senders, at two each; these
 * they never get, so a merchant whose receiver answers in 0.1 s keeps getting its webhooks in
 * about that time.
 */
export const RESERVED_SENDERS = 2;

/**
 * The worker's webhook senders (worker/webhooks.ts runs each in a loop): they drain the outbox
 * side by side, so one slow receiver does not hold up the rest. Each claims one delivery at a
 * time, fairly across merchants (`deliverNext`); the reserved ones only for fast receivers.
 */
export function webhookSenders(prisma: PrismaClient, delivery: DeliveryOptions): WorkerJob[] {
  return [
    ...Array.from({ length: SHARED_SENDERS }, (_, i): WorkerJob => ({ name: `webhooks-${i}`, step: () => deliverNext(prisma, delivery) })),
    ...Array.from({ length: RESERVED_SENDERS }, (_, i): WorkerJob => ({ name: `webhooks-fast-${i}`, step: () => deliverNext(prisma, { ...delivery, fastReceiversOnly: true }) })),
  ];
}
