import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { WorkerJob } from '@/lib/worker/job';
import { IdleTurns } from '@/lib/worker/wake';
import { deliverNext, FAST_RECEIVER_MS, type DeliveryOptions } from './deliver';

export { MAX_SENDING_PER_MERCHANT, FAST_RECEIVER_MS, FAST_PROOF_DELIVERIES, SLOW_DEMOTION_MS, MAX_RESERVED_PER_MERCHANT } from './deliver';

/** Senders that serve every merchant (each merchant at most MAX_SENDING_PER_MERCHANT of them at once). */
export const SHARED_SENDERS = 4;
/**
 * Senders kept for merchants whose receivers have proven fast (issue 27, finding 4; the rules are
 * at FAST_RECEIVER_MS in lib/webhooks/deliver.ts). Any number of accounts with slow receivers
 * (sign-up is open) can fill the shared senders, at two each; these they never hold for more than
 * a second, so a merchant whose receiver answers in 0.1 s keeps getting its webhooks in about that time.
 */
export const RESERVED_SENDERS = 2;
/**
 * Requests the reserved senders of a worker let go on at once, at most: each lasts at most
 * WEBHOOK_TIMEOUT_MS and each reserved sender lets one go per FAST_RECEIVER_MS, so this is only a
 * bound for a database that stops answering (their outcomes cannot be recorded); past it, a
 * reserved sender waits for its own request.
 */
const MAX_HANDED_OFF = 32;

/**
 * The worker's webhook senders (worker/webhooks.ts runs each in a loop): they drain the outbox
 * side by side, so one slow receiver does not hold up the rest. Each claims one delivery at a
 * time, fairly across merchants (`deliverNext`); the reserved ones only for proven fast
 * receivers, and they wait for a receiver at most FAST_RECEIVER_MS: a request still unanswered
 * then goes on without its sender (`handOff`), which takes the next delivery. A clean stop waits
 * for those requests (`settle`).
 */
export function webhookSenders(prisma: PrismaClient, delivery: DeliveryOptions): WorkerJob[] {
  const handedOff = new Set<Promise<void>>();
  const handOff = {
    afterMs: FAST_RECEIVER_MS,
    keep(rest: Promise<void>) {
      const kept: Promise<void> = rest
        .catch((err: unknown) => console.error(`worker webhooks: a delivery that went on without its sender: ${(err as Error).message}`))
        .finally(() => handedOff.delete(kept));
      handedOff.add(kept);
    },
  };
  const settle = async () => {
    while (handedOff.size > 0) await Promise.all([...handedOff]);
  };
  // While nothing is due, one shared and one reserved sender at a time look (lib/worker/wake.ts).
  const sharedTurns = new IdleTurns();
  const reservedTurns = new IdleTurns();
  return [
    ...Array.from({ length: SHARED_SENDERS }, (_, i): WorkerJob => ({ name: `webhooks-${i}`, idleTurns: sharedTurns, step: () => deliverNext(prisma, delivery) })),
    ...Array.from({ length: RESERVED_SENDERS }, (_, i): WorkerJob => ({
      name: `webhooks-fast-${i}`,
      idleTurns: reservedTurns,
      step: () => deliverNext(prisma, { ...delivery, fastReceiversOnly: true, ...(handedOff.size < MAX_HANDED_OFF && { handOff }) }),
      settle,
    })),
  ];
}
