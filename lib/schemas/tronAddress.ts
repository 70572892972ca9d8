import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isTronAddress } from '@/lib/chain/keys';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58 text to bytes, or null when a character is not base58. */
function base58Bytes(text: string): Buffer | null {
  let n = 0n;
  for (const ch of text) {
    const digit = BASE58.indexOf(ch);
    if (digit < 0) return null;
    n = n * 58n + BigInt(digit);
  }
  const hex = n.toString(16);
  const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  const zeros = text.length - text.replace(/^1+/, '').length;
  return Buffer.concat([Buffer.alloc(zeros), body]);
}

/**
 * What is wrong with a would-be Tron address, in words a person can act on, or null when it is
 * valid. A well-formed address whose checksum does not match is told so (a mistyped character),
 * not that it should be "T..., 34 characters", which it already is (issue 26).
 */
export function tronAddressProblem(value: string): string | null {
  if (isTronAddress(value)) return null;
  if (!/^T.{33}$/u.test(value)) return 'Enter a valid Tron address: T followed by 33 characters (34 in all).';
  const bytes = base58Bytes(value);
  if (!bytes) return 'This is not a Tron address: it has characters an address never contains (0, O, I and l are not used).';
  if (bytes.length === 25) {
    const payload = bytes.subarray(0, 21);
    const checksum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);
    if (!checksum.equals(bytes.subarray(21))) return 'This address has a wrong checksum: a character is mistyped or missing. Copy the address again from the wallet.';
  }
  return 'Enter a valid Tron address (T..., 34 characters).';
}

/** A Tron address field: trimmed, and refused with what is wrong with it. */
export const tronAddressSchema = z
  .string({ error: 'A valid Tron address is required.' })
  .trim()
  .superRefine((value, ctx) => {
    const problem = tronAddressProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
