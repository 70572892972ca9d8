import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { recordAudit, type AuditBy } from '@/lib/audit/record';
import { hashPassword, verifyPassword } from '@/lib/auth/passwords';
import { MEMBER_ROLES, type MemberRole } from '@/lib/auth/roles';
import { credentialsSchema } from '@/lib/auth/schemas';
import { config } from '@/lib/config';
import { AppError, fieldErrors, notFound } from '@/lib/errors';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import type { MailSettings } from '@/lib/notify/mail';
import { queueMail } from '@/lib/notify/outbox';
import { changeMembershipIn } from './members';

/*
 * Invitations to a store (issue 40, docs/dashboard.md "Members and roles"): an owner invites an
 * e-mail with a role; the link's one-time token is kept only as its SHA-256. With SMTP configured
 * the link is e-mailed (queued in the invitation's transaction, sent by the worker) and not shown;
 * without, it is answered to the inviter, to pass on. Accepting, before INVITATION_DAYS are over:
 * a new e-mail chooses its password and becomes a user; a user that exists gives its password;
 * either way the membership is added through the door of memberships (changeMembershipIn), in the
 * transaction that takes the invitation, so it is taken once.
 */

export const INVITATION_DAYS = 7;
export const INVITATION_NOT_FOUND = 'This invitation link is not valid: it was used, it expired, or it was never one. Ask for a new one.';

export const invitationSchema = z.object({
  email: credentialsSchema.shape.email,
  role: z.enum(MEMBER_ROLES, { error: `Must be one of ${MEMBER_ROLES.join(', ')}.` }),
});

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** The page an invitation's link opens (app/invite/[token]). */
export const invitationPath = (token: string) => `/invite/${encodeURIComponent(token)}`;

export interface InvitationJson {
  id: number;
  email: string;
  role: MemberRole;
  invited_by: string;
  created_at: string;
  expires_at: string;
}

export interface NewInvitation extends InvitationJson {
  /** Whether the link was e-mailed (SMTP configured): then it is not in this answer. */
  emailed: boolean;
  /** The link, only where it was not e-mailed: shown to the inviter once, to pass on. */
  link: string | null;
}

/** The store's invitations not yet accepted and not expired, newest first. */
export async function pendingInvitations(db: PrismaClient, merchantId: number): Promise<InvitationJson[]> {
  const rows = await db.memberInvitation.findMany({ where: { merchantId, acceptedAt: null, expiresAt: { gt: new Date() } }, orderBy: { id: 'desc' } });
  return rows.map((r) => ({ id: r.id, email: r.email, role: r.role as MemberRole, invited_by: r.invitedBy, created_at: r.createdAt.toISOString(), expires_at: r.expiresAt.toISOString() }));
}

/** Invites `email` to the store with `role`, writing member_invited in the same transaction. 409 when the e-mail is a member already. */
export async function inviteMember(
  prisma: PrismaClient,
  store: { id: number; storeName: string | null; email: string },
  input: z.output<typeof invitationSchema>,
  by: AuditBy & { actor: { kind: 'dashboard'; email: string } },
  baseUrl: string,
  settings: MailSettings = config(),
): Promise<NewInvitation> {
  const token = randomBytes(32).toString('base64url');
  const link = `${baseUrl}${invitationPath(token)}`;
  const expiresAt = new Date(Date.now() + INVITATION_DAYS * 24 * 60 * 60 * 1000);
  return prisma.$transaction(async (tx) => {
    const member = await tx.membership.findFirst({ where: { merchantId: store.id, user: { email: input.email } }, select: { id: true } });
    if (member) throw new AppError('CONFLICT', `${input.email} is a member of this store already.`);
    const row = await tx.memberInvitation.create({ data: { merchantId: store.id, email: input.email, role: input.role, tokenHash: tokenHash(token), invitedBy: by.actor.email, expiresAt } });
    await recordAudit(tx, by, { merchantId: store.id, action: 'member_invited', subject: input.email, after: { email: input.email, role: input.role, expires_at: expiresAt.toISOString() } });
    const storeName = store.storeName ?? store.email;
    const emailed = await queueMail(
      tx,
      store.id,
      `invitation:${row.id}`,
      {
        to: input.email,
        subject: `You are invited to ${storeName} on Tron Invoicing`,
        text: `${by.actor.email} invited you to the store ${storeName} with the role ${input.role}.\n\nAccept before ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC:\n${link}\n\nIf you did not expect this, ignore this e-mail.`,
      },
      settings,
    );
    return { id: row.id, email: row.email, role: input.role, invited_by: row.invitedBy, created_at: row.createdAt.toISOString(), expires_at: expiresAt.toISOString(), emailed, link: emailed ? null : link };
  });
}

export const INVITATION_UNKNOWN = 'Invitation not found.';

/**
 * Cancels an invitation not yet accepted (a wrong e-mail, a role to give otherwise): its row goes,
 * so its link answers as one never valid, and member_invitation_canceled is written in the same
 * transaction. 404 for another store's, an accepted or an unknown invitation.
 */
export async function cancelInvitation(prisma: PrismaClient, merchantId: number, id: number, by: AuditBy): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const row = await tx.memberInvitation.findFirst({ where: { id, merchantId, acceptedAt: null } });
    // Deleted only as found (not accepted meanwhile): an acceptance and a cancel at once, one wins.
    if (!row || (await tx.memberInvitation.deleteMany({ where: { id, acceptedAt: null } })).count !== 1) throw notFound(INVITATION_UNKNOWN);
    await recordAudit(tx, by, { merchantId, action: 'member_invitation_canceled', subject: row.email, before: { email: row.email, role: row.role, expires_at: row.expiresAt.toISOString() } });
  });
}

/** What the invitation page shows: the store, the e-mail and role, and whether that e-mail has a login already. NOT_FOUND when used, expired or unknown. */
export async function invitationInfo(db: PrismaClient, token: string): Promise<{ store: string; email: string; role: MemberRole; userExists: boolean }> {
  const row = await db.memberInvitation.findUnique({ where: { tokenHash: tokenHash(token) }, include: { merchant: { select: { storeName: true, email: true } } } });
  if (!row || row.acceptedAt || row.expiresAt <= new Date()) throw notFound(INVITATION_NOT_FOUND);
  const user = await db.user.findUnique({ where: { email: row.email }, select: { id: true } });
  return { store: row.merchant.storeName ?? row.merchant.email, email: row.email, role: row.role as MemberRole, userExists: user !== null };
}

/**
 * Accepts an invitation: takes it (once: a conditional UPDATE), makes the user when the e-mail has
 * none (with `password`, as sign-up checks it) or checks the existing user's `password`, and adds
 * the membership, all in one transaction. A wrong password leaves the invitation as it was.
 */
export async function acceptInvitation(prisma: PrismaClient, token: string, password: string, ip: string | null): Promise<{ email: string; merchantId: number }> {
  const hash = tokenHash(token);
  const pending = await prisma.memberInvitation.findUnique({ where: { tokenHash: hash } });
  if (!pending || pending.acceptedAt || pending.expiresAt <= new Date()) throw notFound(INVITATION_NOT_FOUND);
  const existing = await prisma.user.findUnique({ where: { email: pending.email } });
  let passwordHash: string | null = null;
  if (existing) {
    if (!(await verifyPassword(password, existing.passwordHash))) throw fieldErrors({ password: ['Wrong password: give the password you sign in with.'] });
  } else {
    const parsed = credentialsSchema.shape.password.safeParse(password);
    if (!parsed.success) throw fieldErrors({ password: parsed.error.issues.map((i) => i.message) });
    passwordHash = await hashPassword(password);
  }
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.memberInvitation.updateMany({ where: { id: pending.id, acceptedAt: null, expiresAt: { gt: new Date() } }, data: { acceptedAt: new Date() } });
    if (count !== 1) throw notFound(INVITATION_NOT_FOUND);
    const user = existing ?? (await tx.user.create({ data: { email: pending.email, passwordHash } }));
    await changeMembershipIn(tx, pending.merchantId, { kind: 'added', userId: user.id, role: pending.role as MemberRole }, { actor: { kind: 'dashboard', email: pending.email }, ip });
    return { email: pending.email, merchantId: pending.merchantId };
  });
}
