/**
 * int64 fields are bigint inside the devnet. A node writes them as bare JSON
 * numbers, or as strings when a GET asks for `int64_as_string` (java-tron#6699).
 */
const MARK = '\u0000int64:';

export function toNodeJson(value: unknown, int64AsString: boolean): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? (int64AsString ? v.toString() : MARK + v) : v));
  return int64AsString ? text : text.replace(/"\\u0000int64:(-?\d+)"/g, '$1');
}

/** Lossless encoding for the block log: bigints survive the round trip. */
export function encodeRecord(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { $n: v.toString() } : v));
}

export function decodeRecord<T>(line: string): T {
  return JSON.parse(line, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && '$n' in v && typeof v.$n === 'string' && Object.keys(v).length === 1) return BigInt(v.$n);
    return v;
  }) as T;
}
