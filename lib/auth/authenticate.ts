import { sqlPool } from '@/lib/db/client';
import { MERCHANT_COLUMNS, merchantFromRow } from '@/lib/db/rows';
import type { Merchant, PrismaClient } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/errors';
import { hashApiKey, keyFromAuthorizationHeader } from './apiKeys';
import type { ApiKeyScope } from './scopes';
import { ipAllowed } from '@/lib/ipAllowList';
import { singleton } from '@/lib/singletons';

const NO_CREDENTIALS = 'Authentication credentials were not provided.';
const INVALID_KEY = 'Invalid API key';
const LAST_USED_RESOLUTION_MS = 60_000;
// A named (prepared) statement: each connection parses and plans it once.
const KEY_MERCHANT_SQL = `SELECT k.id AS api_key_id, k.scopes AS api_key_scopes, k.allowed_ips AS api_key_allowed_ips, ${MERCHANT_COLUMNS('m')} FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`;

/** The caller of an API request, once its key is checked: the merchant and the key it used. */
export interface ApiCaller {
  merchant: Merchant;
  /**
   * The key's row id, its hash (what the creation limit counts per key; the key itself is never
   * kept) and what it may call (requireScope).
   */
  apiKey: { id: number; hash: string; scopes: readonly ApiKeyScope[] };
}

/**
 * Refuses a call outside the key's scopes (issue 40) with the spec's 403 shape, the detail naming
 * the scope the key lacks so whoever reads the log knows which key to make. Called before the
 * handler does anything, so a refused call stores nothing, not even its Idempotency-Key.
 */
export function requireScope(apiKey: { scopes: readonly ApiKeyScope[] }, scope: ApiKeyScope): void {
  if (!apiKey.scopes.includes(scope)) throw new AppError('FORBIDDEN', `This API key lacks the scope ${scope}.`);
}

/** Resolves the merchant behind an API key, or throws the spec's 403. */
export async function authenticateApiKey(prisma: PrismaClient, authorization: string | null, clientIp: string | null): Promise<ApiCaller> {
  const key = keyFromAuthorizationHeader(authorization);
  if (key === null) throw new AppError('FORBIDDEN', NO_CREDENTIALS);
  if (key === '') throw new AppError('FORBIDDEN', INVALID_KEY);
  const keyHash = hashApiKey(key);
  // One query: the merchant of a live key with this hash (a revoked key has none), through pg,
  // not Prisma's client (lib/db/rows.ts: a sixth of the CPU). The key's own row is written at
  // most once a minute (touchLastUsed), so a read stays one round trip (issue 16).
  const { rows } = await sqlPool(prisma).query({ name: 'api-key-merchant', text: KEY_MERCHANT_SQL, values: [keyHash] });
  if (!rows[0]) throw new AppError('FORBIDDEN', INVALID_KEY);
  const merchant = merchantFromRow(rows[0]);
  // The 403 says what is wrong (issue 26): a merchant locked out by their own whitelist should not
  // hunt for a key problem. Most clients show or log only `detail`, so it is said there, after the
  // spec's sample `Invalid API key` (a client matching the start of it, or the 403, works as
  // before); `reason` has the same words alone (docs/api.md). This confirms to the caller that the
  // key is live, but a key is of no use from an address the whitelist refuses.
  if (!ipAllowed(merchant.ipWhitelist, clientIp)) {
    const reason = `IP address not allowed: ${clientIp ?? 'unknown'} is not in this merchant's IP whitelist (dashboard, Settings).`;
    throw new AppError('FORBIDDEN', `${INVALID_KEY}: ${reason}`, { reason });
  }
  // The key's own allow-list (issue 40), after the store's: a key for one shop server works from
  // that server only, even where the store's whitelist lets other keys in. Said the same way.
  if (!ipAllowed(rows[0].api_key_allowed_ips as string[], clientIp)) {
    const reason = `IP address not allowed: ${clientIp ?? 'unknown'} is not in this API key's IP allow-list (dashboard, API keys).`;
    throw new AppError('FORBIDDEN', `${INVALID_KEY}: ${reason}`, { reason });
  }
  await touchLastUsed(prisma, keyHash);
  // pg reads text[] as an array; the CHECK of migration 0097 keeps it to API_KEY_SCOPES.
  return { merchant, apiKey: { id: rows[0].api_key_id as number, hash: keyHash, scopes: rows[0].api_key_scopes as ApiKeyScope[] } };
}

/**
 * `last_used_at` to the minute: this process writes it at most once a minute per key, and the
 * UPDATE itself skips a key another process touched within the minute, so reads do not turn into
 * writes.
 */
async function touchLastUsed(prisma: PrismaClient, keyHash: string): Promise<void> {
  // When this process last wrote each key's last_used_at (by hash); bounded, as keys are few.
  const touched = singleton('apiKeyLastUsed', () => new Map());
  const now = Date.now();
  if (now - (touched.get(keyHash) ?? 0) < LAST_USED_RESOLUTION_MS) return;
  if (touched.size > 10_000) touched.clear();
  touched.set(keyHash, now);
  const since = new Date(now - LAST_USED_RESOLUTION_MS);
  await prisma.apiKey.updateMany({ where: { keyHash, revokedAt: null, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: since } }] }, data: { lastUsedAt: new Date(now) } });
}
