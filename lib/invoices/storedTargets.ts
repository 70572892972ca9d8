import { z } from 'zod';

/**
 * The stored JSON columns of a payout (invoices.target_wallets, invoices.failed_targets), also part of
 * the Invoice object: here, below lib/payouts, which writes them, and beside the invoice's serializer,
 * which reads them (issue 35: lib/invoices imports nothing of lib/payouts).
 */

/**
 * A payout target as stored in `invoices.target_wallets` and echoed by the API
 * (spec 4.5): the amount as an exact JSON number in the payout token. Written
 * by lib/payouts/create.ts, read by the payout loop and the serializer, all
 * through `parseStoredTargets`, so the column has one shape.
 */
export const payoutTargetJsonSchema = z.object({ address: z.string(), amount: z.number().describe('In the payout token') });

/** A target the payout could not pay (`invoices.failed_targets`, docs/payouts.md); `index` is its place in `target_wallets`. */
export const failedTargetJsonSchema = z.object({
  index: z.int().describe('Position in target_wallets'),
  address: z.string(),
  amount: z.number(),
  error: z.string(),
});

export type PayoutTargetJson = z.output<typeof payoutTargetJsonSchema>;
export type FailedTargetJson = z.output<typeof failedTargetJsonSchema>;

/** `invoices.target_wallets` on read; null (not a payout) is an empty list. Throws when a row does not have the column's shape. */
export function parseStoredTargets(json: unknown): PayoutTargetJson[] {
  return z.array(payoutTargetJsonSchema).parse(json ?? []);
}

/** `invoices.failed_targets` on read; null (nothing failed, or not finished) is an empty list. */
export function parseFailedTargets(json: unknown): FailedTargetJson[] {
  return z.array(failedTargetJsonSchema).parse(json ?? []);
}
