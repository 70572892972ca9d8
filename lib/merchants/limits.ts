/*
 * Input limits of a merchant's settings, enforced by lib/merchants/schemas.ts
 * and shown by the dashboard's form. Plain constants, so a client component
 * can import them (schemas.ts pulls in node:net; see lib/invoices/limits.ts).
 */

/** The AML risk limit is a score from 0 to this (spec 2.4). */
export const MAX_AML_RISK_LIMIT = 100;

/** The store name shown in the payment page's header (column VARCHAR(80), migration 0064). */
export const MAX_STORE_NAME = 80;

/** An e-mail address's longest form (RFC 5321 path limit; column VARCHAR(254)). */
export const MAX_SUPPORT_EMAIL = 254;

/**
 * The most a merchant may accept short of a SINGLE invoice's amount, in percent (issue 36): OxaPay
 * allows up to 60 %, BTCPay any; half the amount is already more than any exchange's fee.
 */
export const MAX_UNDERPAYMENT_TOLERANCE_PERCENT = 50;
