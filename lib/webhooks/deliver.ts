import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Prisma, PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { execute, queryRows, sql } from '@/lib/db/sql';
import { backoffMs } from '@/lib/backoff';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { open } from '@/lib/crypto/secretBox';
import { resolveDestination } from './destination';
import { eventIdOf } from './resend';
import { signatureHeaders } from './signature';

export interface DeliveryOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Merchants with retries on (docs/webhooks.md): the backoff; unset, the configured defaults. */
  retry?: RetryPolicy;
  /** A reserved sender (lib/webhooks/senders.ts): claims only for merchants whose receivers have proven fast. */
  fastReceiversOnly?: boolean;
  /**
   * A request its receiver has not answered `afterMs` after it began goes on without the sender:
   * handed to `keep` (which waits for its answer and its record), and `deliverNext` returns.
   */
  handOff?: { afterMs: number; keep(rest: Promise<void>): void };
  /** Told when a retry falls due (in ms), so an idle sender is woken for it (lib/worker/wake.ts). */
  wakeAfter?(ms: number): void;
  /** Told after a delivery failed, once its outcome is recorded (the worker e-mails about an endpoint that keeps failing). */
  onFailed?(delivery: WebhookDelivery): Promise<unknown>;
}

export interface RetryPolicy {
  /** The wait before the first retry; each next wait doubles... */
  baseMs: number;
  /** ... up to this... */
  maxMs: number;
  /** ... and no retry later than this after the chain's first attempt (three days). */
  windowMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 300_000, maxMs: 12 * 60 * 60_000, windowMs: 72 * 60 * 60_000 };

/**
 * When the attempt after the `attempt`-th failed one is due, or null once the window is spent:
 * exponential backoff from the failed attempt's end, never past `firstAt + windowMs`.
 */
export function nextAttemptAt(policy: RetryPolicy, attempt: number, firstAt: Date, failedAt: Date): Date | null {
  // No jitter: the schedule is the one docs/webhooks.md promises merchants.
  const wait = backoffMs({ baseMs: policy.baseMs, capMs: policy.maxMs, jitter: 0 }, attempt - 1);
  const at = failedAt.getTime() + wait;
  return at > firstAt.getTime() + policy.windowMs ? null : new Date(at);
}

interface PostResult {
  status: number | null;
  error: string | null;
  /** The start of the receiver's answer, for the delivery log (null when none came). */
  body?: string | null;
}

/** How much of a receiver's answer the delivery log keeps (migration 0091's column). */
export const RESPONSE_EXCERPT_CHARS = 1_000;
// Bytes read for the excerpt (4 per character at most in UTF-8); the rest is drained unread.
const RESPONSE_EXCERPT_BYTES = RESPONSE_EXCERPT_CHARS * 4;

/** The answer's first characters as text a database column takes (PostgreSQL text holds no NUL). */
export function responseExcerpt(chunks: Buffer[]): string {
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\0', '\uFFFD').slice(0, RESPONSE_EXCERPT_CHARS);
}

function post(url: URL, body: string, headers: Record<string, string>, pinned: { address: string; family: 4 | 6 }, timeoutMs: number): Promise<PostResult> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // Connect to the address that was checked, not whatever DNS says a moment later.
        lookup: (_host, _opts, cb) => cb(null, [{ address: pinned.address, family: pinned.family }] as never, undefined as never),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept >= RESPONSE_EXCERPT_BYTES) return;
          chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('error', (err) => resolve({ status: null, error: err.message }));
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? null, error: null, body: responseExcerpt(chunks) });
        });
      },
    );
    // A deadline for the whole exchange, not an idle timeout: a receiver that
    // trickles bytes must not hold a sender past spec 6's ten seconds.
    const deadline = setTimeout(() => {
      resolve({ status: null, error: `no response within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(deadline);
      resolve({ status: null, error: err.message });
    });
    req.end(body);
  });
}

/**
 * Deliveries of one merchant in flight at once, whatever the number of senders.
 * A receiver that never answers holds at most this many senders for its 10 s
 * each; the other senders serve the other merchants (issue 14, finding 3).
 */
export const MAX_SENDING_PER_MERCHANT = 2;
/**
 * The senders kept for fast receivers (issue 27, finding 4; lib/webhooks/senders.ts) serve a
 * merchant only while its receiver has proven fast, so no group of accounts can take them:
 *
 * - proven: its last FAST_PROOF_DELIVERIES finished deliveries each took less than
 *   FAST_RECEIVER_MS (`webhook_receivers.fast_streak`); a new merchant has proven nothing;
 * - not demoted: one answer slower than that (a timeout included) starts the count again and
 *   keeps the merchant off them for SLOW_DEMOTION_MS (`slow_until`), so a receiver alternating
 *   fast and slow answers does not keep qualifying;
 * - none of its deliveries in flight for longer than FAST_RECEIVER_MS, and at most
 *   MAX_RESERVED_PER_MERCHANT of them on a kept sender at once (`webhook_deliveries.reserved`);
 * - and a kept sender waits for a receiver at most FAST_RECEIVER_MS: a request still unanswered
 *   then goes on without it (`DeliveryOptions.handOff`, lib/webhooks/senders.ts), so even a
 *   proven receiver that turns slow costs a kept sender one second, once per proof and demotion.
 *
 * Receivers answer in about 0.1 s; spec 6 allows ten seconds.
 */
export const FAST_RECEIVER_MS = 1_000;
export const FAST_PROOF_DELIVERIES = 3;
export const SLOW_DEMOTION_MS = 15 * 60_000;
export const MAX_RESERVED_PER_MERCHANT = 1;
// Arbitrary constant: claims take this transaction-scoped advisory lock so two senders never
// both see a merchant under its cap and both take one (SKIP LOCKED alone cannot count).
const CLAIM_LOCK_ID = 7_405_114;

/**
 * Claims one pending delivery, fairly: the oldest delivery of a merchant with
 * fewer than MAX_SENDING_PER_MERCHANT in flight, merchants with fewer in flight
 * first (round-robin in effect); for a reserved sender, only of a merchant whose
 * receiver has proven fast (above). One claim at a time, under the advisory
 * lock, and each claim commits before the next looks, so the caps hold across
 * senders and workers.
 */
async function claim(prisma: PrismaClient, fastReceiversOnly: boolean): Promise<WebhookDelivery | null> {
  // Nothing due (a worker's senders find that once a second each while idle): one indexed read,
  // not a transaction that takes the claim lock (issue 41). A delivery queued after this read is
  // claimed at the next round, as one queued after the claim's own read would be.
  const [due] = await queryRows<{ due: boolean }>(prisma, sql`
    SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'PENDING' AND (not_before IS NULL OR not_before <= now())) AS due`);
  if (!due?.due) return null;
  const [, rows] = await prisma.$transaction([
    execute(prisma, sql`SELECT pg_advisory_xact_lock(${CLAIM_LOCK_ID}::bigint)`),
    queryRows<{ id: number }>(prisma, sql`
      WITH in_flight AS (
        SELECT merchant_id, count(*) AS n, count(*) FILTER (WHERE reserved) AS reserved, min(sent_at) AS oldest
        FROM webhook_deliveries WHERE status = 'SENDING' GROUP BY merchant_id
      ), candidate AS (
        SELECT d.id FROM webhook_deliveries d LEFT JOIN webhook_receivers r ON r.merchant_id = d.merchant_id LEFT JOIN in_flight f ON f.merchant_id = d.merchant_id
        WHERE d.status = 'PENDING' AND COALESCE(f.n, 0) < ${MAX_SENDING_PER_MERCHANT}
          AND (d.not_before IS NULL OR d.not_before <= now())
          AND (NOT ${fastReceiversOnly} OR (
            r.fast_streak >= ${FAST_PROOF_DELIVERIES} AND (r.slow_until IS NULL OR r.slow_until <= now())
            AND COALESCE(f.reserved, 0) < ${MAX_RESERVED_PER_MERCHANT}
            AND (f.oldest IS NULL OR f.oldest > now() - ${FAST_RECEIVER_MS} * interval '1 millisecond')))
        ORDER BY COALESCE(f.n, 0), d.id
        LIMIT 1 FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries SET status = 'SENDING', attempts = attempts + 1, sent_at = now(), post_started_at = NULL, reserved = ${fastReceiversOnly}
      WHERE id = (SELECT id FROM candidate)
      RETURNING id`),
  ]);
  const id = rows[0]?.id;
  return id === undefined ? null : prisma.webhookDelivery.findUnique({ where: { id } });
}

/**
 * Gives a claim back when this worker failed before the POST began (the database
 * went away mid-step): nothing reached the receiver, so the delivery is still owed.
 * Best effort: if this fails too, closeInterruptedDeliveries does it later.
 */
async function release(prisma: PrismaClient, delivery: WebhookDelivery): Promise<void> {
  await prisma.webhookDelivery
    .updateMany({ where: { id: delivery.id, status: 'SENDING', attempts: delivery.attempts, postStartedAt: null }, data: { status: 'PENDING' } })
    .catch(() => undefined);
}

/**
 * Sends one queued webhook: POST of the stored Invoice JSON, signed with the
 * merchant's secret. Spec 6 sends it once (a failure, a timeout included, is
 * recorded and that is all); a merchant who turned retries on gets a failed
 * attempt queued again after a backoff (`scheduleRetry`). Returns false when
 * nothing was pending.
 */
export async function deliverNext(prisma: PrismaClient, options: DeliveryOptions): Promise<boolean> {
  const delivery = await claim(prisma, options.fastReceiversOnly ?? false);
  if (!delivery) return false;
  let headers: Record<string, string>;
  const body = JSON.stringify(delivery.payload);
  try {
    const merchant = await prisma.merchant.findUniqueOrThrow({ where: { id: delivery.merchantId }, select: { webhookSecretEnc: true } });
    headers = {
      'content-type': 'application/json',
      'user-agent': 'tron-invoicing-webhooks/1',
      // A retry is the same delivery again: the key of its chain's first attempt.
      'idempotency-key': await idempotencyKeyOf(prisma, delivery),
      'x-webhook-id': String(delivery.id),
      ...signatureHeaders(open(masterKeyRing(), merchant.webhookSecretEnc), await eventIdOf(prisma, delivery), body),
    };
  } catch (err) {
    await release(prisma, delivery);
    throw err;
  }
  const started = Date.now();
  let url: URL;
  let pinned: { address: string; family: 4 | 6 };
  try {
    url = new URL(delivery.url);
    pinned = await resolveDestination(url, options.allowPrivate);
  } catch (err) {
    // The receiver's address is unusable (refused or unresolvable): that is this delivery's outcome.
    await record(prisma, delivery, { status: null, error: (err as Error).message }, started, options);
    return true;
  }
  // From here the receiver may get the request: mark it first, and only while the
  // claim is still ours (the attempt number is the claim's token), so a claim that
  // was swept back to PENDING meanwhile is never sent twice.
  try {
    const { count } = await prisma.webhookDelivery.updateMany({
      where: { id: delivery.id, status: 'SENDING', attempts: delivery.attempts, postStartedAt: null },
      data: { postStartedAt: new Date() },
    });
    if (count === 0) return true;
  } catch (err) {
    await release(prisma, delivery);
    throw err;
  }
  const rest = post(url, body, headers, pinned, options.timeoutMs).then((r) => record(prisma, delivery, r, started, options));
  if (options.handOff && (await answeredWithin(rest, options.handOff.afterMs)) === false) options.handOff.keep(rest);
  else await rest;
  return true;
}

/** Whether `work` settled within `ms` (its rejection is left to whoever awaits it). */
async function answeredWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const first = await Promise.race([work.then(() => true, () => true), late]);
  clearTimeout(timer);
  return first;
}

async function idempotencyKeyOf(prisma: PrismaClient, delivery: WebhookDelivery): Promise<string> {
  if (delivery.retryOfId === null) return delivery.eventKey;
  const first = await prisma.webhookDelivery.findUnique({ where: { id: delivery.retryOfId }, select: { eventKey: true } });
  return first?.eventKey ?? delivery.eventKey;
}

/**
 * The attempt's outcome, and with the merchant's retries on, the next attempt after a failure, in
 * one transaction; the time it took is kept on the merchant too, for the reserved senders' choice.
 */
async function record(prisma: PrismaClient, delivery: WebhookDelivery, result: PostResult, started: number, options: DeliveryOptions): Promise<void> {
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const latencyMs = Date.now() - started;
  const retryAt = await prisma.$transaction(async (tx) => {
    await tx.webhookDelivery.update({
      where: { id: delivery.id },
      data: {
        status: ok ? 'DELIVERED' : 'FAILED',
        responseStatus: result.status,
        responseBody: result.body ?? null,
        latencyMs,
        error: ok ? null : (result.error ?? `receiver answered ${result.status}`),
      },
    });
    // Fast answers prove the receiver (one more in a row); a slow one starts over and demotes it for a while.
    const fast = latencyMs < FAST_RECEIVER_MS;
    const slowUntil = fast ? undefined : new Date(Date.now() + SLOW_DEMOTION_MS);
    await tx.webhookReceiver.upsert({
      where: { merchantId: delivery.merchantId },
      create: { merchantId: delivery.merchantId, lastLatencyMs: latencyMs, fastStreak: fast ? 1 : 0, slowUntil },
      update: { lastLatencyMs: latencyMs, fastStreak: fast ? { increment: 1 } : 0, slowUntil, updatedAt: new Date() },
    });
    return ok ? null : scheduleRetry(tx, delivery, options.retry ?? DEFAULT_RETRY);
  });
  if (retryAt) options.wakeAfter?.(retryAt.getTime() - Date.now());
  // After the outcome is recorded, so the failure counts; a lost call is made good by the next failure.
  if (!ok) await options.onFailed?.(delivery).catch((err: unknown) => console.error(`webhook ${delivery.id}: telling the merchant about failing deliveries failed: ${(err as Error).message}`));
}

/**
 * Queues the next attempt of a failed delivery when its merchant turned retries on
 * (read now, so turning them off stops a chain) and the three-day window allows:
 * a new row, so the log keeps every attempt with its answer, held back by
 * `not_before`. It points at the chain's first attempt, whose event (`webhook-id`)
 * and Idempotency-Key it sends again.
 */
async function scheduleRetry(tx: Prisma.TransactionClient, failed: WebhookDelivery, policy: RetryPolicy): Promise<Date | null> {
  const merchant = await tx.merchant.findUnique({ where: { id: failed.merchantId }, select: { webhookRetries: true } });
  if (!merchant?.webhookRetries) return null;
  const firstId = failed.retryOfId ?? failed.id;
  const first = failed.retryOfId === null ? failed : await tx.webhookDelivery.findUnique({ where: { id: firstId } });
  if (!first) return null;
  const at = nextAttemptAt(policy, failed.attempt, first.createdAt, new Date());
  if (!at) return null;
  await tx.webhookDelivery.createMany({
    data: [{
      merchantId: failed.merchantId,
      invoiceId: failed.invoiceId,
      eventKey: `retry:${firstId}:${failed.attempt + 1}`,
      url: failed.url,
      payload: failed.payload ?? {},
      retryOfId: firstId,
      attempt: failed.attempt + 1,
      notBefore: at,
    }],
    // The event key is unique per attempt: a record that runs twice queues one retry.
    skipDuplicates: true,
  });
  return at;
}

/**
 * Deliveries left in SENDING by a worker that died or lost its database. One
 * whose POST never began (`post_started_at` unset) reached nobody: it goes back
 * to PENDING and is sent. One whose POST began may have reached the receiver;
 * the spec says a webhook is sent once, so it is closed as failed (the dashboard
 * can resend it by hand) rather than sent again blindly.
 */
export async function closeInterruptedDeliveries(prisma: PrismaClient, staleSeconds: number): Promise<{ requeued: number; closed: number }> {
  const stale = { status: 'SENDING' as const, sentAt: { lt: new Date(Date.now() - staleSeconds * 1000) } };
  const requeued = await prisma.webhookDelivery.updateMany({ where: { ...stale, postStartedAt: null }, data: { status: 'PENDING' } });
  const closed = await prisma.webhookDelivery.updateMany({
    where: { ...stale, postStartedAt: { not: null } },
    data: { status: 'FAILED', error: 'interrupted by a worker restart after the request began; not resent (webhooks are sent once)' },
  });
  return { requeued: requeued.count, closed: closed.count };
}
