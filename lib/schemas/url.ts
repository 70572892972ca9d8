import { z } from 'zod';

export const MAX_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL a merchant gives us (webhook_url, redirect_url), in
 * the form we store: what the WHATWG parser makes of it (host lower-cased,
 * default port dropped, dot segments resolved, unsafe characters escaped).
 *
 * Refused rather than repaired: forms that browsers "fix" but other parsers
 * read differently, so the URL that is stored is the URL that was meant:
 * `http:/evil.com`, `https:evil.com` and `http:\\evil.com` (no `//`), any
 * backslash, whitespace or control character, and credentials
 * (`https://user:pass@host/`, `https://good.example@evil.example/`), which would
 * leak into logs and the dashboard and are a classic phishing disguise.
 */
function normalizeHttpUrl(value: string): string {
  if (!/^https?:\/\//i.test(value)) throw new Error('Enter a valid http(s) URL starting with http:// or https://.');
  if (/[\\\s\u0000-\u001f\u007f]/.test(value)) throw new Error('Enter a valid http(s) URL: backslashes, spaces and control characters are not allowed.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('Enter a valid http(s) URL.');
  }
  if (!url.hostname) throw new Error('Enter a valid http(s) URL.');
  if (url.username || url.password) throw new Error('URLs with credentials (user:password@) are not accepted.');
  if (url.href.length > MAX_URL_LENGTH) throw new Error(`Ensure this field has no more than ${MAX_URL_LENGTH} characters.`);
  return url.href;
}

/** The zod field for such a URL, transformed to its stored form. */
export const httpUrlSchema = z
  .string({ error: 'Enter a valid http(s) URL.' })
  .max(MAX_URL_LENGTH, `Ensure this field has no more than ${MAX_URL_LENGTH} characters.`)
  .transform((v, ctx) => {
    try {
      return normalizeHttpUrl(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });
