import { AppError, invalidInput, notFound } from '@/lib/errors';
import { MAX_JSON_DEPTH, tooDeep } from '@/lib/validation';
import { parseId } from '@/lib/schemas/id';

/** Largest request body accepted; a 1,000-target payout is about 70 KB. */
const MAX_BODY_BYTES = 1024 * 1024;

const DRAIN_BYTES = 16 * MAX_BODY_BYTES;

const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes.`);

/** The body as text, refusing (413) before reading past MAX_BODY_BYTES whatever Content-Length claims. */
async function boundedText(req: Request): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      // The rest is read and dropped, so the client, still sending, gets the 413 rather than a
      // reset; past DRAIN_BYTES (or HTTP_REQUEST_TIMEOUT_SECONDS, server.ts) the connection is cut.
      while (size <= DRAIN_BYTES) {
        const next = await reader.read();
        if (next.done) throw tooLarge();
        size += next.value.byteLength;
      }
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Nesting depth of parsed JSON, counted iteratively; stops as soon as it passes the cap. */
function exceedsDepth(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_JSON_DEPTH) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The request's JSON body. An empty body reads as `{}` so that required fields
 * are reported by name; too large is 413, not JSON or nested deeper than
 * MAX_JSON_DEPTH is 400 `JSON parse error - ...` (spec part 7).
 */
export async function readJson(req: Request): Promise<unknown> {
  const text = await boundedText(req);
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalidInput(`JSON parse error - ${(err as Error).message}`);
  }
  if (exceedsDepth(parsed)) throw tooDeep();
  return parsed;
}


/** A numeric id from the path; anything else is the resource's 404, as for an unknown id. */
export function idParam(value: string, notFoundDetail: string): number {
  const id = parseId(value);
  if (id === null) throw notFound(notFoundDetail);
  return id;
}

/**
 * A free-text path parameter (a transaction hash): one that holds a NUL or
 * control character, or is longer than any hash, cannot match anything, so it
 * is the resource's 404 without a query.
 */
export function textParam(value: string, notFoundDetail: string, maxLength = 128): string {
  if (value.length === 0 || value.length > maxLength || /[\u0000-\u001f\u007f]/.test(value)) throw notFound(notFoundDetail);
  return value;
}

export function queryObject(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams.entries());
}
