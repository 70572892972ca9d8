import { createHash } from 'node:crypto';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { execute, queryRows, sql } from '@/lib/db/sql';

/** How long a key's first answer is kept and given again (Stripe's 24 hours). */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** A request still running after this long died mid-way (a request times out long before). */
export const IDEMPOTENCY_STALE_SECONDS = 120;
/** Expired keys dropped per new key: the table stays at a day of keys without a job of its own. */
const PURGE_BATCH = 100;

/** What a repeated request finds under its key. */
export type KeyClaim =
  /** The key was free (or expired): this request runs and records its answer. */
  | { kind: 'claimed' }
  /** The first request with the key has answered: give that answer again. */
  | { kind: 'replay'; responseStatus: number; responseBody: string }
  /** The key was first used with another request. */
  | { kind: 'mismatch' }
  /** The first request is still running (`stale`: for so long that it must have died mid-way). */
  | { kind: 'running'; stale: boolean };

/**
 * The request's fingerprint: method, path and the body as canonical JSON (keys sorted), so a
 * client that serialises the same body in another key order is still the same request.
 */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Claims `key` for this merchant's request, or says what the first request with it left. The
 * primary key (merchant_id, key) lets exactly one of several concurrent duplicates claim it.
 */
export async function claimKey(prisma: PrismaClient, merchantId: number, key: string, hash: string): Promise<KeyClaim> {
  // A key past its 24 hours is free again; a few other expired keys go with it.
  await execute(prisma, sql`DELETE FROM idempotency_keys WHERE merchant_id = ${merchantId} AND key = ${key} AND created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`);
  const claimed = await queryRows<{ key: string }>(prisma, sql`
    INSERT INTO idempotency_keys (merchant_id, key, request_hash) VALUES (${merchantId}, ${key}, ${hash})
    ON CONFLICT (merchant_id, key) DO NOTHING RETURNING key`);
  if (claimed.length > 0) {
    await purgeExpired(prisma);
    return { kind: 'claimed' };
  }
  const [row] = await queryRows<{ request_hash: string; response_status: number | null; response_body: string | null; stale: boolean }>(prisma, sql`
    SELECT request_hash, response_status, response_body, created_at < now() - make_interval(secs => ${IDEMPOTENCY_STALE_SECONDS}) AS stale
    FROM idempotency_keys WHERE merchant_id = ${merchantId} AND key = ${key}`);
  // Released between the two statements (the first request failed): try again.
  if (!row) return claimKey(prisma, merchantId, key, hash);
  if (row.request_hash !== hash) return { kind: 'mismatch' };
  if (row.response_status === null || row.response_body === null) return { kind: 'running', stale: row.stale };
  return { kind: 'replay', responseStatus: row.response_status, responseBody: row.response_body };
}

/** Records the answer the claimed key gives from now on. */
export async function completeKey(prisma: PrismaClient, merchantId: number, key: string, responseStatus: number, responseBody: string): Promise<void> {
  await execute(prisma, sql`UPDATE idempotency_keys SET response_status = ${responseStatus}, response_body = ${responseBody}, completed_at = now() WHERE merchant_id = ${merchantId} AND key = ${key}`);
}

/** Frees the key of a request that created nothing (refused or failed), so a retry may run. */
export async function releaseKey(prisma: PrismaClient, merchantId: number, key: string): Promise<void> {
  await execute(prisma, sql`DELETE FROM idempotency_keys WHERE merchant_id = ${merchantId} AND key = ${key} AND response_status IS NULL`);
}

async function purgeExpired(prisma: PrismaClient): Promise<void> {
  await execute(prisma, sql`
    DELETE FROM idempotency_keys WHERE ctid IN (
      SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS}) ORDER BY created_at LIMIT ${PURGE_BATCH})`);
}
