import { createHash, randomBytes } from 'node:crypto';
import type { ApiKey, PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';
import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { AppError, notFound } from '@/lib/errors';
import { isoMicro } from '@/lib/time';
import { API_KEY_SCOPES, type ApiKeyScope } from './scopes';

/*
 * The one home of API keys: the key material and the Authorization header
 * (used by lib/auth/authenticate.ts), and issuing, listing and revoking a
 * merchant's keys (the dashboard's key page). Only a key's hash is stored.
 */

const KEY_PREFIX = 'tk_';
export const DISPLAY_PREFIX_LENGTH = 10;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): { key: string; prefix: string; keyHash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), keyHash: hashApiKey(key) };
}

/**
 * The spec's header is a bare `Authorization: <API_KEY>`; clients written for
 * other gateways send `Bearer`, `Token` or `Api-Key` schemes, so those are accepted too.
 */
export function keyFromAuthorizationHeader(header: string | null): string | null {
  const value = header?.trim() ?? '';
  if (value === '') return null;
  const m = /^(?:bearer|token|api-key|apikey)\s+(\S+)$/i.exec(value);
  if (m) return m[1] ?? null;
  return /^\S+$/.test(value) ? value : '';
}

/**
 * Issues a new API key; the plain key is returned once and only its hash is kept. Without
 * `scopes` it may call everything, as every key could before scopes (issue 40); without
 * `allowedIps` (canonical rules, lib/auth/schemas.ts) from wherever the store's whitelist allows.
 */
export async function issueApiKey(prisma: PrismaClient, merchantId: number, label: string, scopes: readonly ApiKeyScope[] = API_KEY_SCOPES, allowedIps: readonly string[] = []): Promise<string> {
  const { key, prefix, keyHash } = generateApiKey();
  // In the list's order, once each, whatever order the caller chose them in.
  await prisma.apiKey.create({ data: { merchantId, label, prefix, keyHash, scopes: API_KEY_SCOPES.filter((s) => scopes.includes(s)), allowedIps: [...allowedIps] } });
  return key;
}

export const API_KEY_NOT_FOUND = 'No API key matches the given query.';


function apiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
    scopes: k.scopes as ApiKeyScope[],
    allowed_ips: k.allowedIps,
    created_at: isoMicro(k.createdAt),
    last_used_at: k.lastUsedAt && isoMicro(k.lastUsedAt),
    revoked_at: k.revokedAt && isoMicro(k.revokedAt),
  };
}

export type ApiKeyJson = ReturnType<typeof apiKeyJson>;

export async function listApiKeys(prisma: PrismaClient, merchantId: number): Promise<ApiKeyJson[]> {
  const keys = await prisma.apiKey.findMany({ where: { merchantId }, orderBy: [{ revokedAt: { sort: 'desc', nulls: 'first' } }, { id: 'desc' }] });
  return keys.map(apiKeyJson);
}

/** Revoking twice is not an error; another merchant's key is a 404, as an unknown one. */
export async function revokeApiKey(prisma: PrismaClient, merchantId: number, id: number): Promise<void> {
  const { count } = await prisma.apiKey.updateMany({ where: { id, merchantId, revokedAt: null }, data: { revokedAt: new Date() } });
  if (count === 0 && !(await prisma.apiKey.findFirst({ where: { id, merchantId }, select: { id: true } }))) throw notFound(API_KEY_NOT_FOUND);
}

/**
 * The one door of a key's own IP allow-list: replaces it with `allowedIps` (canonical rules) and
 * writes the audit row, with the list as it was and as it is, in the same transaction, under the
 * key's row lock so two edits cannot drop each other's. Nothing changed, nothing logged. Another
 * store's key is a 404, as an unknown one; a revoked key's list is refused, it no longer matters.
 */
export async function changeApiKeyIps(prisma: PrismaClient, merchantId: number, id: number, allowedIps: readonly string[], by: AuditBy): Promise<ApiKeyJson> {
  return prisma.$transaction(async (tx) => {
    const [locked] = await queryRows<{ id: number }>(tx, sql`SELECT id FROM api_keys WHERE id = ${id} AND merchant_id = ${merchantId} FOR UPDATE`);
    if (!locked) throw notFound(API_KEY_NOT_FOUND);
    const key = await tx.apiKey.findUniqueOrThrow({ where: { id } });
    if (key.revokedAt) throw new AppError('CONFLICT', 'This API key is revoked: it can no longer be used from anywhere.');
    if (JSON.stringify(key.allowedIps) === JSON.stringify(allowedIps)) return apiKeyJson(key);
    await recordAudit(tx, by, { merchantId, action: 'key_changed', subject: id, before: { allowed_ips: key.allowedIps }, after: { allowed_ips: allowedIps } });
    return apiKeyJson(await tx.apiKey.update({ where: { id }, data: { allowedIps: [...allowedIps] } }));
  });
}
