import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PrismaClient, WebhookDelivery } from '@/lib/generated/prisma/client';
import { masterKeyRing } from '@/lib/crypto/masterKey';
import { open } from '@/lib/crypto/secretBox';
import { resolveDestination } from './destination';
import { eventIdOf } from './resend';
import { signatureHeaders } from './signature';

export interface DeliveryOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

interface PostResult {
  status: number | null;
  error: string | null;
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
        res.resume();
        res.on('error', (err) => resolve({ status: null, error: err.message }));
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? null, error: null });
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
// Arbitrary constant: claims take this transaction-scoped advisory lock so two senders never
// both see a merchant under its cap and both take one (SKIP LOCKED alone cannot count).
const CLAIM_LOCK_ID = 7_405_114;

/**
 * Claims one pending delivery, fairly: the oldest delivery of a merchant with
 * fewer than MAX_SENDING_PER_MERCHANT in flight, merchants with fewer in flight
 * first (round-robin in effect). One claim at a time, under the advisory lock,
 * and each claim commits before the next looks, so the cap holds across
 * senders and workers.
 */
async function claim(prisma: PrismaClient): Promise<WebhookDelivery | null> {
  const [, rows] = await prisma.$transaction([
    prisma.$executeRaw`SELECT pg_advisory_xact_lock(${CLAIM_LOCK_ID}::bigint)`,
    prisma.$queryRaw<{ id: number }[]>`
      WITH in_flight AS (
        SELECT merchant_id, count(*) AS n FROM webhook_deliveries WHERE status = 'SENDING' GROUP BY merchant_id
      ), candidate AS (
        SELECT d.id FROM webhook_deliveries d LEFT JOIN in_flight f ON f.merchant_id = d.merchant_id
        WHERE d.status = 'PENDING' AND COALESCE(f.n, 0) < ${MAX_SENDING_PER_MERCHANT}
        ORDER BY COALESCE(f.n, 0), d.id
        LIMIT 1 FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries SET status = 'SENDING', attempts = attempts + 1, sent_at = now(), post_started_at = NULL
      WHERE id = (SELECT id FROM candidate)
      RETURNING id`,
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
 * merchant's secret, at most once (spec 6: no retry; a timeout is recorded).
 * Returns false when nothing was pending.
 */
export async function deliverNext(prisma: PrismaClient, options: DeliveryOptions): Promise<boolean> {
  const delivery = await claim(prisma);
  if (!delivery) return false;
  let headers: Record<string, string>;
  const body = JSON.stringify(delivery.payload);
  try {
    const merchant = await prisma.merchant.findUniqueOrThrow({ where: { id: delivery.merchantId }, select: { webhookSecretEnc: true } });
    headers = {
      'content-type': 'application/json',
      'user-agent': 'tron-invoicing-webhooks/1',
      'idempotency-key': delivery.eventKey,
      'x-webhook-id': String(delivery.id),
      ...signatureHeaders(open(masterKeyRing(), merchant.webhookSecretEnc), await eventIdOf(prisma, delivery), body),
    };
  } catch (err) {
    await release(prisma, delivery);
    throw err;
  }
  const started = Date.now();
  let result: PostResult;
  let url: URL;
  let pinned: { address: string; family: 4 | 6 };
  try {
    url = new URL(delivery.url);
    pinned = await resolveDestination(url, options.allowPrivate);
  } catch (err) {
    // The receiver's address is unusable (refused or unresolvable): that is this delivery's outcome.
    result = { status: null, error: (err as Error).message };
    await record(prisma, delivery, result, started);
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
  result = await post(url, body, headers, pinned, options.timeoutMs);
  await record(prisma, delivery, result, started);
  return true;
}

async function record(prisma: PrismaClient, delivery: WebhookDelivery, result: PostResult, started: number): Promise<void> {
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  await prisma.webhookDelivery.update({
    where: { id: delivery.id },
    data: {
      status: ok ? 'DELIVERED' : 'FAILED',
      responseStatus: result.status,
      latencyMs: Date.now() - started,
      error: ok ? null : (result.error ?? `receiver answered ${result.status}`),
    },
  });
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
