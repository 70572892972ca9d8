import { createHash, randomBytes } from 'node:crypto';

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
