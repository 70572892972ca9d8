import { z } from 'zod';
import { tronAddressSchema } from '@/lib/schemas/tronAddress';
import { upperCase } from '@/lib/schemas/listQuery';
import { usdAmountSchema } from '@/lib/money/schemas';
import { CURRENCIES, TOKEN_DECIMALS, USD_DECIMALS } from '@/lib/money/tokens';
import { payoutTargetJsonSchema } from '@/lib/invoices/storedTargets';
import { MAX_PAYOUT_TARGETS } from './limits';

// Target amounts are token amounts; TRX and USDT have 6 decimals like USD, so the
// USD amount rules (> 0, at most 6 decimals, at most 1e9) apply unchanged.
if (TOKEN_DECIMALS !== USD_DECIMALS) throw new Error('payout amounts assume token and USD scales are equal');

const targetSchema = z.object(
  {
    address: tronAddressSchema,
    amount: usdAmountSchema,
  },
  { error: 'Expected an object {address, amount}.' },
);

/**
 * The body of a payout (spec 4.5) and of its estimate (4.6). An address may
 * appear only once: paying one address twice in one list is almost always a
 * mistake, and a client that means it can add the amounts up.
 */
export const payoutRequestSchema = z.object({
  target_wallets: z
    .array(targetSchema, { error: 'Expected a list of {address, amount}.' })
    .min(1, 'At least one target wallet is required.')
    .max(MAX_PAYOUT_TARGETS, `Ensure this list has at most ${MAX_PAYOUT_TARGETS} items.`)
    .superRefine((targets, ctx) => {
      const seen = new Map<string, number>();
      targets.forEach((t, i) => {
        const first = seen.get(t.address);
        if (first === undefined) seen.set(t.address, i);
        else ctx.addIssue({ code: 'custom', path: [i, 'address'], message: `Duplicate of target_wallets[${first}].address; each address may appear once.` });
      });
    })
    .transform((targets) => targets.map((t) => ({ address: t.address, units: t.amount }))),
  currency: z.preprocess(upperCase, z.enum(CURRENCIES, { error: 'Must be "TRX" or "USDT".' })).describe('The payout token; case-insensitive'),
}).meta({ id: 'PayoutRequest', description: 'At most 1,000 targets, each address once; amounts in the payout token, > 0, at most 6 decimals.' });

export type PayoutRequest = z.output<typeof payoutRequestSchema>;
/** One target as a client sends it (the dashboard form builds these from its textarea). */
export type PayoutTargetInput = z.input<typeof targetSchema>;
export type PayoutTarget = PayoutRequest['target_wallets'][number];

// ---- Response (spec 2.6 and docs/api.md "Mass payouts").

export const payoutEstimateSchema = z
  .object({
    amount: z.number().describe('USD value of the amounts to send'),
    currency: z.enum(CURRENCIES),
    target_wallets: z.array(payoutTargetJsonSchema),
    need_energy: z.int(),
    need_bandwidth: z.int(),
    cost: z.number().describe('service_fee + network_fee with GAS_MARGIN_PERCENT, in the payout token'),
    activation_cost: z.number(),
    service_fee: z.number(),
    network_fee: z.number(),
    accounts_to_activate: z.int(),
    topup_amount: z.number().describe('Sum of the amounts + cost + activation_cost'),
    energy_source: z.enum(['POOL', 'RENTAL', 'BURN']).nullable().describe('Addition: what a USDT payout\'s energy is quoted with (the service\'s staked pool, rented energy, or burned TRX); the run follows it. null for TRX'),
  })
  .meta({ id: 'PayoutEstimate', description: 'What a mass payout costs, and the parts it is made of' });

export type PayoutEstimateJson = z.output<typeof payoutEstimateSchema>;

/** The dashboard's request to return a payout that cannot finish (docs/payouts.md, "Returning a payout"); the address is checked by requestPayoutReturn. */
export const payoutReturnSchema = z.object({ address: z.string().min(1) });
