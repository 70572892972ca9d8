import { z } from 'zod';
import { publicBaseUrl } from '@/lib/config';
import { documentAs } from './openapi';

const DEFAULT_PAGE_SIZE = 10;
/** PostgreSQL's OFFSET is a bigint and Prisma's `skip` a 32-bit int; no list is that long. */
const MAX_OFFSET = 2_147_483_647;

const nonNegativeInt = (field: string) =>
  z.string().regex(/^\d+$/, `${field} must be a non-negative integer`).transform(Number);

/**
 * limit/offset paging. A limit above the maximum is clamped to it (as Django REST
 * framework's LimitOffsetPagination does), so clients asking for "everything" get
 * the largest page rather than an error.
 */
export function pageQuerySchema(maxLimit: number) {
  return z.object({
    limit: documentAs(
      nonNegativeInt('limit')
        .refine((n) => n > 0, 'limit must be at least 1')
        .transform((n) => Math.min(n, maxLimit))
        .default(DEFAULT_PAGE_SIZE),
      { type: 'integer', minimum: 1, default: DEFAULT_PAGE_SIZE, description: `Page size. Above ${maxLimit} it is clamped to ${maxLimit} (not refused).` },
    ),
    offset: documentAs(
      nonNegativeInt('offset')
        .refine((n) => n <= MAX_OFFSET, `offset must be at most ${MAX_OFFSET}`)
        .default(0),
      { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Number of items skipped.' },
    ),
  });
}

export interface Page {
  limit: number;
  offset: number;
}

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
