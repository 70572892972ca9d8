/*
 * The scopes an API key can hold (issue 40), the single list: the database's CHECK constraint
 * (prisma/migrations/0097_api_key_scopes), the route table (lib/http/api/routes.ts, each route
 * names one), the dashboard's form and docs/api.md ("Key scopes") all follow it. Plain data, so
 * the dashboard's client components can import it (docs/modules.md).
 */

export const API_KEY_SCOPES = ['read', 'invoices:write', 'payouts:write', 'refunds:write'] as const;

export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** What each scope allows, in the dashboard's words. */
export const API_KEY_SCOPE_DESCRIPTIONS: Record<ApiKeyScope, string> = {
  read: 'Read invoices, transactions, refunds, held payments, rates and payout estimates',
  'invoices:write': 'Create and cancel invoices',
  'payouts:write': 'Create mass payouts and release held payments to an address',
  'refunds:write': 'Create and cancel refunds',
};

export function isApiKeyScope(value: unknown): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly unknown[]).includes(value);
}
