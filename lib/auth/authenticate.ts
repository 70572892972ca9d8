import { db } from '@/lib/db/client';
import type { Merchant } from '@/lib/generated/prisma/client';
import { AppError } from '@/lib/errors';
import { hashApiKey, keyFromAuthorizationHeader } from './apiKeys';
import { ipAllowed } from './ipAllowList';

const NO_CREDENTIALS = 'Authentication credentials were not provided.';
const INVALID_KEY = 'Invalid API key';
const LAST_USED_RESOLUTION_MS = 60_000;

/** Resolves the merchant behind an API key, or throws the spec's 403. */
export async function authenticateApiKey(authorization: string | null, clientIp: string | null): Promise<Merchant> {
  const key = keyFromAuthorizationHeader(authorization);
  if (key === null) throw new AppError('FORBIDDEN', NO_CREDENTIALS);
  if (key === '') throw new AppError('FORBIDDEN', INVALID_KEY);
  const apiKey = await db().apiKey.findUnique({ where: { keyHash: hashApiKey(key) }, include: { merchant: true } });
  if (!apiKey || apiKey.revokedAt) throw new AppError('FORBIDDEN', INVALID_KEY);
  // A refused IP reads as a bad key, so the reply does not confirm that a stolen key is valid.
  if (!ipAllowed(apiKey.merchant.ipWhitelist, clientIp)) throw new AppError('FORBIDDEN', INVALID_KEY);
  await touchLastUsed(apiKey.id, apiKey.lastUsedAt);
  return apiKey.merchant;
}

// At most one write a minute per key, so reads do not turn into writes.
async function touchLastUsed(id: number, lastUsedAt: Date | null): Promise<void> {
  const now = new Date();
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  await db().apiKey.update({ where: { id }, data: { lastUsedAt: now } });
}
