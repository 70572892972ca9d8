import { z } from 'zod';
import { documentAs } from './openapi';

/** ISO 8601 with microseconds and a UTC offset (docs/api.md "Timestamps"): every object's `created_at`, an invoice's `expired_at`. */
export const timestampSchema = documentAs(z.iso.datetime({ offset: true }), {
  type: 'string',
  format: 'date-time',
  description: 'ISO 8601 with six fractional digits and +00:00',
  examples: ['2026-11-23T01:44:15.072000+00:00'],
});
