/*
 * The roles a store's member can hold (issue 40, "users and stores apart"), the single list: the
 * database's CHECK (prisma/migrations/0101_users_and_memberships), the dashboard's route table
 * (lib/http/dashboard/routes.ts, each row names the roles that may call it), the Team page and
 * docs/dashboard.md ("Roles") all follow it. Plain data, so client components can import it.
 */

export const MEMBER_ROLES = ['owner', 'admin', 'finance', 'support', 'developer'] as const;

export type MemberRole = (typeof MEMBER_ROLES)[number];

/** What each role is for, in the dashboard's words. */
export const MEMBER_ROLE_DESCRIPTIONS: Record<MemberRole, string> = {
  owner: 'Everything, including members and the payout wallet',
  admin: 'Settings and API keys; not members or the payout wallet',
  finance: 'Payouts, refunds, held-money releases and exports',
  support: 'Read invoices and transactions, resend webhooks',
  developer: 'API keys, webhooks, and read',
};

export function isMemberRole(value: unknown): value is MemberRole {
  return (MEMBER_ROLES as readonly unknown[]).includes(value);
}

/** The role's name as a sentence says it ("an owner", "a finance member"). */
export function roleNames(roles: readonly MemberRole[]): string {
  const names = roles.map((r) => `'${r}'`);
  return names.length <= 1 ? (names[0] ?? 'none') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
