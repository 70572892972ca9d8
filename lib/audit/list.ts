import type { AuditLog, Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import type { CsvCell } from '@/lib/export/csv';
import type { Page } from '@/lib/schemas/page';
import { dayStartUtc, isoMicro, nextDayStartUtc } from '@/lib/time';
import type { AuditQuery } from './schemas';

export type AuditFilter = Omit<AuditQuery, 'limit' | 'offset'>;

/** One row as the dashboard's page and its CSV show it. */
export function auditJson(row: AuditLog) {
  return {
    id: Number(row.id),
    created_at: isoMicro(row.createdAt),
    action: row.action,
    actor_kind: row.actorKind,
    actor: row.actor,
    api_key_id: row.apiKeyId,
    client_ip: row.clientIp,
    subject: row.subject,
    before: row.before,
    after: row.after,
  };
}

export type AuditJson = ReturnType<typeof auditJson>;

function auditWhere(merchantId: number, f: AuditFilter): Prisma.AuditLogWhereInput {
  return {
    merchantId,
    ...(f.action && { action: f.action }),
    ...((f.date_from || f.date_to) && { createdAt: { ...(f.date_from && { gte: dayStartUtc(f.date_from) }), ...(f.date_to && { lt: nextDayStartUtc(f.date_to) }) } }),
  };
}

/**
 * One page of a store's log, newest first. Newest is by id, the order rows were written in: a row's
 * created_at is its transaction's start, so a long transaction's row can be older than one written
 * before it committed, and the id is what the (merchant_id, id) index walks.
 */
export async function listAudit(prisma: PrismaClient, merchantId: number, f: AuditFilter, page: Page): Promise<{ count: number; rows: AuditJson[] }> {
  const where = auditWhere(merchantId, f);
  const [count, rows] = await prisma.$transaction([prisma.auditLog.count({ where }), prisma.auditLog.findMany({ where, orderBy: { id: 'desc' }, take: page.limit, skip: page.offset })]);
  return { count, rows: rows.map(auditJson) };
}

/** Every row the filters match, newest first, `batchSize` at a time below the last id seen (keyset), for the CSV export. */
export async function* auditBatches(prisma: PrismaClient, merchantId: number, f: AuditFilter, batchSize = 1000): AsyncGenerator<AuditJson[]> {
  const where = auditWhere(merchantId, f);
  let below: bigint | undefined;
  for (;;) {
    const rows = await prisma.auditLog.findMany({ where: { AND: [where, below === undefined ? {} : { id: { lt: below } }] }, orderBy: { id: 'desc' }, take: batchSize });
    if (rows.length > 0) yield rows.map(auditJson);
    if (rows.length < batchSize) return;
    below = rows[rows.length - 1]!.id;
  }
}

export const AUDIT_CSV_HEADER = ['created_at', 'action', 'actor_kind', 'actor', 'api_key_id', 'client_ip', 'subject', 'before', 'after'] as const;

/** Before and after as JSON text in their cells (csvCell quotes them, and defuses a leading = or +). */
export function auditCsvRow(r: AuditJson): CsvCell[] {
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return [r.created_at, r.action, r.actor_kind, r.actor, r.api_key_id, r.client_ip, r.subject, json(r.before), json(r.after)];
}
