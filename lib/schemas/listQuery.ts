import { z } from 'zod';
import { documentAs } from './openapi';

/**
 * A `YYYY-MM-DD` calendar day. `YYYY_MM_DD` is read too: the spec's sample
 * request for the transaction list writes dates with underscores.
 */
export const dateSchema = (field: string) =>
  documentAs(
    z
      .string()
      .transform((d) => d.replaceAll('_', '-'))
      .pipe(
        z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date in YYYY-MM-DD format.`)
          // Year 0000 parses in JS but is out of PostgreSQL's range.
          .refine((d) => !d.startsWith('0000') && !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), `${field} is not a valid date.`),
      ),
    { type: 'string', pattern: '^\\d{4}[-_]\\d{2}[-_]\\d{2}$', description: 'A UTC calendar day, inclusive: YYYY-MM-DD (YYYY_MM_DD is read too).', examples: ['2026-11-23'] },
  );

/** `field` or `-field` for one of `fields`. */
export const orderingSchema = (fields: readonly string[]) =>
  documentAs(
    z.string().refine((o) => fields.includes(o.replace(/^-/, '')), `ordering must be one of ${fields.map((f) => `${f}, -${f}`).join(', ')}.`),
    { type: 'string', enum: fields.flatMap((f) => [f, `-${f}`]), description: 'A `-` prefix sorts descending; ties are broken by id in the same direction.' },
  );

export const upperCase = (v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase() : v);

/**
 * `term` for Prisma's `contains`, which becomes `ILIKE '%term%'` without
 * escaping: `_` and `%` would match any character(s), so `search=_` listed
 * everything. PostgreSQL's default LIKE escape character is the backslash.
 */
export function likeLiteral(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}
