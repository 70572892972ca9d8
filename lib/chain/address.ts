import { createHash } from 'node:crypto';
import { TronWeb } from 'tronweb';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX41 = /^41[0-9a-fA-F]{40}$/;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/**
 * A node's hex address (41 + 20 bytes) in base58check, as TronWeb.address.fromHex writes it, with
 * node:crypto's SHA-256. The scanner converts the sender and recipient of every transfer in every
 * block it reads: under mainnet traffic (hundreds of transactions a block, issue 37) tronweb's
 * JavaScript SHA-256 was the worker's largest cost after garbage collection. Anything else than a
 * 41-prefixed hex address is left to tronweb.
 */
export function base58Address(hex41: string): string {
  if (!HEX41.test(hex41)) return TronWeb.address.fromHex(hex41);
  const payload = Buffer.from(hex41, 'hex');
  const checked = Buffer.concat([payload, sha256(sha256(payload)).subarray(0, 4)]);
  let n = BigInt(`0x${checked.toString('hex')}`);
  let text = '';
  while (n > 0n) {
    text = ALPHABET[Number(n % 58n)]! + text;
    n /= 58n;
  }
  // 0x41 leads, so there are no leading zero bytes (base58's '1's) to add.
  return text;
}
