import { z } from 'zod';
import { timestampSchema } from '@/lib/schemas/timestamp';
import { usdAmountSchema } from '@/lib/money/schemas';
import { CURRENCIES, currencySchema } from '@/lib/money/tokens';
import { upperCase } from '@/lib/schemas/listQuery';
import { tronAddressSchema } from '@/lib/schemas/tronAddress';

/** The merchant's note on a refund, echoed as `reason`. */
export const MAX_REFUND_REASON = 500;

export const REFUND_STATUSES = ['WAITING_ADDRESS', 'WAITING_FUNDS', 'SENDING', 'SENT', 'FAILED', 'CANCELED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * `POST /v1/api/payment/{id}/refund` (issue 36, docs/refunds.md). The amount is what the customer
 * receives, in the token; the network cost is on top, in the merchant's top-up. Without `address`
 * the customer enters one at the claim link.
 */
export const createRefundSchema = z
  .object({
    currency: z.preprocess(upperCase, z.enum(CURRENCIES, { error: 'Must be "TRX" or "USDT".' })).describe('The token refunded; case-insensitive'),
    // Token amounts have the USD amounts' rules (> 0, at most 6 decimals, at most 1e9): both scales are 10^6.
    amount: usdAmountSchema.describe('What the customer receives, in `currency`; at most what the invoice received in it, less its other refunds'),
    address: z.preprocess((v) => (v === '' ? null : v), tronAddressSchema.nullish()).describe('Where to send it (T...); without it, the answer\'s claim_url lets the customer enter one'),
    reason: z.string().trim().max(MAX_REFUND_REASON, `Ensure this field has at most ${MAX_REFUND_REASON} characters.`).nullish().describe('A note for the merchant\'s records; never shown to the customer'),
  })
  .meta({ id: 'RefundRequest' });

export type CreateRefundInput = z.output<typeof createRefundSchema>;

export const refundSchema = z
  .object({
    id: z.int(),
    invoice: z.int().describe('The invoice refunded'),
    status: z.enum(REFUND_STATUSES).describe('WAITING_ADDRESS (the customer has not entered an address at claim_url), WAITING_FUNDS (top up topup_amount to topup_address), SENDING, SENT, FAILED (see failure_reason), CANCELED'),
    failure_reason: z.string().nullable().describe('Why it FAILED; null otherwise'),
    currency: currencySchema,
    amount: z.number().describe('What the customer receives, in `currency`'),
    address: z.string().nullable().describe('Where it goes; null until the customer enters one'),
    claim_url: z.string().nullable().describe('The page where the customer enters their address and follows the refund; null when the merchant gave the address'),
    reason: z.string().nullable().describe('The merchant\'s note'),
    payout: z.int().nullable().describe('The one-target mass payout (MULTIPLE_TRANSFER invoice) that sends it, once the address is known'),
    topup_address: z.string().nullable().describe('Where the merchant sends the refund\'s money; null until the address is known'),
    topup_amount: z.number().nullable().describe('What is still to be sent to topup_address: the amount and its network cost, less what arrived and what held money (funded_from_held) is bringing; 0 once funded; null until the address is known'),
    cost: z.number().nullable().describe('The network cost (with margin and the temporary address\'s activation, and the release of any held money funding it), in `currency`, paid by the merchant; no service fee; null until the address is known'),
    funded_from_held: z
      .object({
        payments: z.array(z.string()).describe('The held payments (their trn_hash) released into the refund\'s payout, each whole'),
        amount: z.number().describe('What those payments hold, in `currency`'),
        cost: z.number().describe('The network cost of releasing them into the payout (estimated until their send is built), in `currency`; part of `cost`'),
      })
      .nullable()
      .describe('Money the service held for the invoice (a payment after cancel or expiry, dust, a refused forward) that funds this refund before any top-up; null when none does'),
    trn_hash: z.string().nullable().describe('The transfer to the customer, once sent'),
    created_at: timestampSchema,
  })
  .meta({ id: 'Refund', description: 'A merchant\'s refund of a sale' });

export type RefundJson = z.output<typeof refundSchema>;

/** The claim page's `POST /refund/{id}/claim?k=...`: the customer's address; `confirm` once told it looks like another. */
export const claimRefundSchema = z.object({
  address: tronAddressSchema,
  confirm: z.boolean({ error: 'Must be a boolean.' }).optional(),
});

export const refundPageParamsSchema = z.object({ id: z.string() });
export const refundPageQuerySchema = z.object({ k: z.string().optional() });
/** The claim route reads any body and leaves it to claimRefund, which checks the link's key before it (claimRefundSchema). */
export const refundClaimBodySchema = z.unknown();
