import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { execute, sql, type PrismaRaw } from '@/lib/db/sql';

/*
 * The one door of the audit log (issue 40, migration 0098): every security-relevant and
 * money-moving change writes its row here, on the client of the change's own database
 * transaction where the change is one, so no change is committed without its row and no row
 * without its change. The table is append-only (a trigger refuses UPDATE, DELETE and TRUNCATE).
 */

/** Every action the log records; the dashboard's filter offers these (docs/dashboard.md, "Audit log"). */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_in_failed',
  'key_created',
  'key_revoked',
  'key_changed',
  'payout_wallet_changed',
  'webhook_url_changed',
  'webhook_secret_changed',
  'ip_whitelist_changed',
  'payout_created',
  'payout_returned',
  'held_released',
  'refund_created',
  'settings_changed',
  'two_factor_changed',
  'member_invited',
  'member_invitation_canceled',
  'member_added',
  'member_role_changed',
  'member_removed',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did it: a dashboard user (by the e-mail signed in with), an API key (by id), or the service itself (a named operator command). */
export type AuditActor = { kind: 'dashboard'; email: string } | { kind: 'api_key'; keyId: number } | { kind: 'system'; name: string };

/** Who made a change and from where: what a route (or an operator command) hands down to the function that makes it. */
export interface AuditBy {
  actor: AuditActor;
  /** The caller's address as server.ts determined it; null when unknown (an operator command). */
  ip: string | null;
}

/** A value the log keeps: JSON only, never a secret. */
export type AuditValue = Prisma.InputJsonValue | null;

export interface AuditEntry {
  merchantId: number;
  action: AuditAction;
  /** What the action was done to: a payout's or refund's id, a key's id, a payment's hash. */
  subject?: string | number | null;
  before?: AuditValue;
  after?: AuditValue;
}

/** A client that can run SQL: the process's, or a transaction's (Prisma's transaction client lacks $transaction and the rest). */
type Db = PrismaRaw;

const jsonOrNull = (v: AuditValue | undefined) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Writes one row. An API key is named by its id and its prefix, the prefix read from api_keys in
 * the same statement: the row says which key even after the key is revoked, and the caller needs
 * to carry nothing but the id it authenticated with.
 */
export async function recordAudit(db: Db, by: AuditBy, entry: AuditEntry): Promise<void> {
  const { actor } = by;
  const keyId = actor.kind === 'api_key' ? actor.keyId : null;
  const name = actor.kind === 'dashboard' ? actor.email : actor.kind === 'system' ? actor.name : null;
  const subject = entry.subject === undefined || entry.subject === null ? null : String(entry.subject);
  await execute(db, sql`
    INSERT INTO audit_log (merchant_id, actor_kind, actor, api_key_id, action, client_ip, subject, before, after)
    VALUES (${entry.merchantId}, ${actor.kind}, COALESCE(${name}::text, (SELECT prefix FROM api_keys WHERE id = ${keyId}::int)), ${keyId}::int,
            ${entry.action}, ${by.ip}, ${subject}, ${jsonOrNull(entry.before)}::jsonb, ${jsonOrNull(entry.after)}::jsonb)`);
}

/** An operator command or the service itself, by name (`npm run payout:return`, say). */
export function systemActor(name: string): AuditBy {
  return { actor: { kind: 'system', name }, ip: null };
}

/**
 * Runs `change` and writes its row in one database transaction: for a change of one statement whose
 * function takes the process's client (issuing or revoking a key). `change` is handed the
 * transaction's client typed as the client such functions take; one that opened a transaction of its
 * own would throw (Prisma's transaction client has no $transaction), rolling everything back, never
 * committing the change apart from its row. `describe` gives the row from the change's result.
 */
export function audited<T>(prisma: PrismaClient, by: AuditBy, change: (tx: PrismaClient) => Promise<T>, describe: (result: T, tx: Prisma.TransactionClient) => AuditEntry | Promise<AuditEntry>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    const result = await change(tx as unknown as PrismaClient);
    await recordAudit(tx, by, await describe(result, tx));
    return result;
  });
}
