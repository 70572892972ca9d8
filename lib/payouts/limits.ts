/*
 * Input limits of a mass payout, enforced by lib/payouts/schemas.ts and shown
 * by the dashboard's form. Plain constants, so a client component can import
 * them without the chain code schemas.ts needs (see lib/invoices/limits.ts).
 */

/**
 * Most targets one payout may carry. The estimate, the top-up and every send
 * are per target; 1,000 keeps a create call within a few seconds and a payout
 * within one worker lease round (see docs/payouts.md).
 */
export const MAX_PAYOUT_TARGETS = 1000;
