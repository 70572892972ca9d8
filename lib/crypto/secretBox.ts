import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (invoice private keys, webhook secrets).
 * Each ciphertext names the key that sealed it, so old keys can stay readable
 * during a rotation: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
export interface KeyRing {
  current: Buffer;
  previous: Buffer[];
}

export function keyRingFrom(currentHex: string, previousHex = ''): KeyRing {
  return {
    current: Buffer.from(currentHex, 'hex'),
    previous: previousHex.split(',').filter(Boolean).map((k) => Buffer.from(k, 'hex')),
  };
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export function seal(ring: KeyRing, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.current, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', keyId(ring.current), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export function open(ring: KeyRing, sealed: string): string {
  const [version, id, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !id || !iv || !tag || body === undefined) throw new Error('Malformed sealed secret');
  const key = [ring.current, ...ring.previous].find((k) => keyId(k) === id);
  if (!key) throw new Error(`No master key with id ${id}; was it removed from MASTER_KEYS_PREVIOUS too early?`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** True when `sealed` was sealed with an older key and should be re-sealed. */
export function needsReseal(ring: KeyRing, sealed: string): boolean {
  return sealed.split('.')[1] !== keyId(ring.current);
}
