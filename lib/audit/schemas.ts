import { z } from 'zod';
import { dateSchema } from '@/lib/schemas/listQuery';
import { pageQuerySchema } from '@/lib/schemas/page';
import { AUDIT_ACTIONS } from './record';

export const MAX_AUDIT_PAGE = 300;

/** The dashboard's audit log query (docs/dashboard.md, "Audit log"): paging, one action, and a range of UTC days. */
export const auditQuerySchema = pageQuerySchema(MAX_AUDIT_PAGE).extend({
  action: z.enum(AUDIT_ACTIONS, { error: `Must be one of ${AUDIT_ACTIONS.join(', ')}.` }).optional(),
  date_from: dateSchema('date_from').optional(),
  date_to: dateSchema('date_to').optional(),
});

export type AuditQuery = z.output<typeof auditQuerySchema>;
