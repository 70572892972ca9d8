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

/**
 * Who may do what in a store (issue 40, docs/dashboard.md "Roles"): each row of the dashboard's
 * route table (lib/http/dashboard/routes.ts) names one of these, and the header hides the link to a
 * page whose list the role may not read (components/dashboard/Nav.tsx). Owner: everything,
 * including members and the payout wallet; admin: settings and keys, not members; finance:
 * payouts, refunds, held releases, exports; support: read invoices and transactions, resend
 * webhooks; developer: keys, webhooks, read. What is one's own login (the password, two-factor
 * sign-in) every member may change.
 */
export const ROLES = {
  read: MEMBER_ROLES,
  ownLogin: MEMBER_ROLES,
  invoices: ['owner', 'admin', 'finance'],
  money: ['owner', 'finance'],
  exports: ['owner', 'admin', 'finance'],
  keys: ['owner', 'admin', 'developer'],
  webhooks: ['owner', 'admin', 'developer'],
  resend: ['owner', 'admin', 'support', 'developer'],
  settings: ['owner', 'admin'],
  audit: ['owner', 'admin'],
  members: ['owner'],
} as const satisfies Record<string, readonly MemberRole[]>;

export function isMemberRole(value: unknown): value is MemberRole {
  return (MEMBER_ROLES as readonly unknown[]).includes(value);
}

/** The role's name as a sentence says it ("an owner", "a finance member"). */
export function roleNames(roles: readonly MemberRole[]): string {
  const names = roles.map((r) => `'${r}'`);
  return names.length <= 1 ? (names[0] ?? 'none') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}
