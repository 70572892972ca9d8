import type { AuditBy } from '@/lib/audit/record';

/**
 * Who is calling, as the audit log names them (lib/audit/record.ts): every change a route makes is
 * handed this, so the function that makes the change writes its row in the same transaction.
 */

/** A dashboard request: the e-mail of the user the session signed in, from the caller's address. */
export function dashboardBy({ user, ip }: { user: { email: string }; ip: string | null }): AuditBy {
  return { actor: { kind: 'dashboard', email: user.email }, ip };
}

/** A merchant API request: the key it authenticated with, from the caller's address. */
export function apiKeyBy({ apiKey, ip }: { apiKey: { id: number }; ip: string | null }): AuditBy {
  return { actor: { kind: 'api_key', keyId: apiKey.id }, ip };
}
