import type { ApiKey, PrismaClient } from '@/lib/generated/prisma/client';
import { notFound } from '@/lib/http/errors';
import { isoMicro } from '@/lib/time';

export const API_KEY_NOT_FOUND = 'No API key matches the given query.';


function apiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    label: k.label,
    prefix: k.prefix,
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
