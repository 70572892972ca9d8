/**
 * next-auth's `callbackUrl` (where to go after signing in or out) comes from a query parameter,
 * a form field or a cookie, so anyone can set it. next-auth answers one that is no http(s) URL
 * (`javascript:alert(1)`, `not a url`) with a 500 "server configuration" error, an HTML page for
 * its sign-in page and, for the cookie, on every dashboard page (issue 27, finding 5). Only a
 * place on the dashboard's own origin is kept; anything else is dropped before next-auth sees it.
 */

/** The cookie next-auth keeps the callback URL in (`__Secure-` over https). */
export const CALLBACK_COOKIE = /^(?:__Secure-)?next-auth\.callback-url$/;

/**
 * `value` (an absolute URL, or a path from the root) as an absolute URL on `baseUrl`'s origin, or
 * null when it is elsewhere or neither (a relative "page" is no place next-auth accepts).
 */
export function sameOriginCallback(value: string, baseUrl: string): string | null {
  try {
    const base = new URL(baseUrl);
    const target = value.startsWith('/') ? new URL(value, base) : new URL(value);
    return target.origin === base.origin ? `${base.origin}${target.pathname}${target.search}${target.hash}` : null;
  } catch {
    return null;
  }
}

/** A request target with a `callbackUrl` that is not on the dashboard's origin taken out; unchanged otherwise. */
export function withSafeCallbackQuery(target: string, baseUrl: string): string {
  const q = target.indexOf('?');
  if (q < 0 || !target.includes('callbackUrl', q)) return target;
  const params = new URLSearchParams(target.slice(q + 1));
  const given = params.get('callbackUrl');
  if (given === null) return target;
  const safe = sameOriginCallback(given, baseUrl);
  if (safe === null) params.delete('callbackUrl');
  else params.set('callbackUrl', safe);
  const rest = params.toString();
  return `${target.slice(0, q)}${rest ? `?${rest}` : ''}`;
}

/** A Cookie header whose callback cookie is on the dashboard's origin (as an absolute URL) or dropped; unchanged without one. */
export function withSafeCallbackCookie(header: string, baseUrl: string): string {
  if (!header.includes('callback-url')) return header;
  const kept: string[] = [];
  for (const part of header.split(';')) {
    const pair = part.trim();
    const eq = pair.indexOf('=');
    const name = eq < 0 ? '' : pair.slice(0, eq);
    if (!CALLBACK_COOKIE.test(name)) {
      if (pair) kept.push(pair);
      continue;
    }
    let safe: string | null = null;
    try {
      safe = sameOriginCallback(decodeURIComponent(pair.slice(eq + 1)), baseUrl);
    } catch {
      /* bad percent-encoding: dropped */
    }
    if (safe !== null) kept.push(`${name}=${encodeURIComponent(safe)}`);
  }
  return kept.join('; ');
}
