import { z } from 'zod';
import { publicBaseUrl } from '@/lib/config';
import type { Page } from '@/lib/schemas/page';

export interface PageEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

function linkWith(url: URL, offset: number, limit: number): string {
  const link = new URL(url.pathname + url.search, publicBaseUrl());
  link.searchParams.set('limit', String(limit));
  if (offset > 0) link.searchParams.set('offset', String(offset));
  else link.searchParams.delete('offset');
  return link.toString();
}

/** The list envelope with absolute next/previous links that keep every filter of the request. */
export function pageEnvelope<T>(url: URL, page: Page, count: number, results: T[]): PageEnvelope<T> {
  const { limit, offset } = page;
  return {
    count,
    next: offset + limit < count ? linkWith(url, offset + limit, limit) : null,
    previous: offset > 0 ? linkWith(url, Math.max(0, offset - limit), limit) : null,
    results,
  };
}

/** The list envelope's schema around `item` (for the OpenAPI document). */
export function pageEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.int(),
    next: z.string().nullable().describe('Absolute URL of the next page (keeps every filter), or null'),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}
