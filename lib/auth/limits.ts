/*
 * Input limits of API keys, enforced by lib/auth/schemas.ts and shown by the
 * dashboard's form (client components import limits.ts files, never
 * schemas.ts; see docs/modules.md).
 */

/** Longest API key label. */
export const MAX_API_KEY_LABEL = 100;

/** Most addresses and ranges one key's own IP allow-list holds. */
export const MAX_API_KEY_IP_RULES = 20;
