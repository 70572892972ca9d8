import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { AppError, invalidInput } from '@/lib/errors';
import { claimKey, completeKey, IDEMPOTENCY_TTL_HOURS, releaseKey, requestHash } from '@/lib/idempotency/store';
import { jsonResponse } from './errors';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MAX_KEY_LENGTH = 255;
/** How long a duplicate waits for the first request with its key to answer before a 409. */
const WAIT_MS = 10_000;
const POLL_MS = 100;

/**
 * Visible ASCII (no space), as docs/api.md says; a UUID is the usual choice. The space is refused
 * also because two Idempotency-Key headers reach us joined as `a, b`: which one the client meant
 * is unknown, so neither is used.
 */
function checkedKey(raw: string): string {
  const key = raw.trim();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalidInput(`Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters (a UUID is a good choice).`);
  }
  return key;
}

/**
 * Runs a creating request at most once per `Idempotency-Key` (docs/api.md, "Idempotent
 * creation"), with Stripe's semantics: a repeat of the same request within 24 hours gets the
 * first answer again (status and body, `Idempotent-Replayed: true`), the same key with another
 * body is refused, and a duplicate that arrives while the first still runs waits for its answer.
 * A refusal (an AppError: invalid data, rate limit, a rate or node unavailable) creates nothing
 * and frees the key for the corrected retry. An unexpected failure frees it too, and is never
 * replayed (issue 34: a 500 kept for 24 hours turned one fault into a day of failures): a
 * creation is one database transaction that such a failure rolls back, so the retry creates
 * once. A request that died before answering (a crash) still leaves its key claimed, and a
 * repeat is told so (409) rather than run twice. Without the header the request runs as it
 * always did.
 */
export async function idempotent({ req, merchant, db: prisma }: { req: Request; merchant: Merchant; db: PrismaClient }, body: unknown, run: () => Promise<unknown>): Promise<unknown> {
  const header = req.headers.get(IDEMPOTENCY_HEADER);
  if (header === null) return run();
  const key = checkedKey(header);
  const hash = requestHash(req.method, new URL(req.url).pathname.replace(/\/+$/, ''), body);
  const waitUntil = Date.now() + WAIT_MS;
  for (;;) {
    const claim = await claimKey(prisma, merchant.id, key, hash);
    if (claim.kind === 'claimed') break;
    if (claim.kind === 'replay') return new Response(claim.responseBody, { status: claim.responseStatus, headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true' } });
    if (claim.kind === 'mismatch') {
      throw new AppError('UNPROCESSABLE', `This Idempotency-Key was already used with a different request in the last ${IDEMPOTENCY_TTL_HOURS} hours; use a new key for a new request.`);
    }
    if (claim.stale) {
      throw new AppError('CONFLICT', 'An earlier request with this Idempotency-Key was interrupted before it answered, so whether it created anything is unknown: look for it (GET /payment/list) before sending it again with a new key.');
    }
    if (Date.now() >= waitUntil) throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress; retry in a moment to get its answer.');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }

  let response: Response;
  try {
    const result = await run();
    response = result instanceof Response ? result : jsonResponse(result);
  } catch (err) {
    // The edge answers it (lib/http/route.ts: a refusal's status, or the logged 500).
    await releaseKey(prisma, merchant.id, key);
    throw err;
  }
  const text = await response.clone().text();
  await completeKey(prisma, merchant.id, key, response.status, text);
  return response;
}
