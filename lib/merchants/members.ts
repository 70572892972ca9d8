import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { roleNames, type MemberRole } from '@/lib/auth/roles';
import { hasSecondFactor } from '@/lib/auth/twoFactor';
import { AppError, invalidInput, notFound } from '@/lib/errors';
import type { Prisma, PrismaClient } from '@/lib/generated/prisma/client';
import { queryRows, sql } from '@/lib/db/sql';

/*
 * The one door of a store's memberships (issue 40, "users and stores apart"), as
 * changeInvoiceStatus is the one of an invoice's status: a member added (an invitation accepted),
 * a role changed, a member removed, each with its audit row in the same database transaction.
 * Nothing else writes `memberships` but a store's creation, which makes its first owner with it
 * (createMerchant). A store always keeps an owner: the last one cannot be removed or demoted.
 */

export const MEMBER_NOT_FOUND = 'Member not found.';
export const LAST_OWNER = 'A store needs an owner: make another member owner before removing or demoting the last one.';

export type MembershipChange =
  /** A user joins the store with a role (an invitation accepted). */
  | { kind: 'added'; userId: number; role: MemberRole }
  | { kind: 'role_changed'; userId: number; role: MemberRole }
  | { kind: 'removed'; userId: number };

export interface MemberJson {
  user_id: number;
  email: string;
  role: MemberRole;
  created_at: string;
}

/** A member as the Team page lists it: with whether it signs in with a second factor (issue 40). */
export interface MemberListJson extends MemberJson {
  two_factor: boolean;
}

/** The store's members, owners first, then by when they joined. */
export async function listMembers(db: PrismaClient, merchantId: number): Promise<MemberListJson[]> {
  const rows = await db.membership.findMany({ where: { merchantId }, include: { user: { select: { email: true, totpEnabledAt: true, passkeys: { select: { id: true } } } } }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const json = rows.map((m) => ({ user_id: m.userId, email: m.user.email, role: m.role as MemberRole, created_at: m.createdAt.toISOString(), two_factor: hasSecondFactor(m.user) }));
  return [...json.filter((m) => m.role === 'owner'), ...json.filter((m) => m.role !== 'owner')];
}

/**
 * Makes one change to the store's members and writes its audit row (member_added,
 * member_role_changed, member_removed), in one transaction. The store's row is locked first, so
 * two changes to one store's members run one after the other and the last-owner check sees the
 * other's result. Answers the membership as it is after the change (null once removed).
 */
export function changeMembership(prisma: PrismaClient, merchantId: number, change: MembershipChange, by: AuditBy): Promise<MemberJson | null> {
  return prisma.$transaction((tx) => changeMembershipIn(tx, merchantId, change, by));
}

/** changeMembership inside the caller's transaction (an invitation accepted with it: lib/merchants/invitations.ts). */
export async function changeMembershipIn(tx: Prisma.TransactionClient, merchantId: number, change: MembershipChange, by: AuditBy): Promise<MemberJson | null> {
  await queryRows(tx, sql`SELECT id FROM merchants WHERE id = ${merchantId} FOR UPDATE`);
  const user = await tx.user.findUnique({ where: { id: change.userId }, select: { id: true, email: true } });
  const current = await tx.membership.findUnique({ where: { userId_merchantId: { userId: change.userId, merchantId } } });
  if (change.kind === 'added') {
    if (!user) throw notFound('User not found.');
    if (current) throw new AppError('CONFLICT', `${user.email} is a member of this store already.`);
    const created = await tx.membership.create({ data: { userId: user.id, merchantId, role: change.role } });
    await recordAudit(tx, by, { merchantId, action: 'member_added', subject: user.id, after: { email: user.email, role: change.role } });
    return { user_id: user.id, email: user.email, role: change.role, created_at: created.createdAt.toISOString() };
  }
  if (!user || !current) throw notFound(MEMBER_NOT_FOUND);
  const before = { email: user.email, role: current.role };
  const staysOwner = change.kind === 'role_changed' && change.role === 'owner';
  if (current.role === 'owner' && !staysOwner) {
    const owners = await tx.membership.count({ where: { merchantId, role: 'owner' } });
    if (owners <= 1) throw invalidInput(LAST_OWNER);
  }
  if (change.kind === 'removed') {
    await tx.membership.delete({ where: { id: current.id } });
    await recordAudit(tx, by, { merchantId, action: 'member_removed', subject: user.id, before });
    return null;
  }
  if (current.role === change.role) return { user_id: user.id, email: user.email, role: change.role, created_at: current.createdAt.toISOString() };
  await tx.membership.update({ where: { id: current.id }, data: { role: change.role } });
  await recordAudit(tx, by, { merchantId, action: 'member_role_changed', subject: user.id, before, after: { email: user.email, role: change.role } });
  return { user_id: user.id, email: user.email, role: change.role, created_at: current.createdAt.toISOString() };
}

/** The 403 of a call the caller's role does not allow: names the roles that may, and changes nothing. */
export function requireRole(role: MemberRole, allowed: readonly MemberRole[], what = 'This'): void {
  if (!allowed.includes(role)) throw new AppError('FORBIDDEN', `${what} needs the role ${roleNames(allowed)}; your role in this store is '${role}'.`);
}
