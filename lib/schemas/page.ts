import { z } from 'zod';
import { documentAs } from './openapi';

export const DEFAULT_PAGE_SIZE = 10;
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

/**
 * A parsed list query taken apart into the list function's `(filter, page)`: the page is the
 * envelope's too (lib/http/pagination.ts), the filter is everything else.
 */
export function splitPage<Q extends Page>(query: Q): { filter: Omit<Q, 'limit' | 'offset'>; page: Page } {
  const { limit, offset, ...filter } = query;
  return { filter, page: { limit, offset } };
}
