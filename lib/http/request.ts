import { ApiError, notFound } from './errors';

/** Set by server.ts from the socket (and trusted proxies); any client-sent copy is overwritten. */
export const CLIENT_IP_HEADER = 'x-invoicing-client-ip';

/** An empty body reads as `{}` so that required fields are reported by name. */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, `JSON parse error - ${(err as Error).message}`);
  }
}

/** A numeric id from a path segment, or null for anything else. */
export function parseId(value: string): number | null {
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}

/** A numeric id from the path; anything else is the resource's 404, as for an unknown id. */
export function idParam(value: string, notFoundDetail: string): number {
  const id = parseId(value);
  if (id === null) throw notFound(notFoundDetail);
  return id;
}

export function queryObject(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams.entries());
}
