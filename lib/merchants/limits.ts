/*
 * Input limits of a merchant's settings, enforced by lib/merchants/schemas.ts
 * and shown by the dashboard's form. Plain constants, so a client component
 * can import them (schemas.ts pulls in node:net; see lib/invoices/limits.ts).
 */

/** The AML risk limit is a score from 0 to this (spec 2.4). */
export const MAX_AML_RISK_LIMIT = 100;
