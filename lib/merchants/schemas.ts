import { z } from 'zod';
import { canonicalIpRule, IpRuleError } from '@/lib/auth/ipAllowList';
import { tronAddressSchema } from '@/lib/schemas/tronAddress';
import { httpUrlSchema } from '@/lib/schemas/url';
import { formatScaled, parseScaled } from '@/lib/money/decimal';
import { MAX_AML_RISK_LIMIT } from './limits';

// ---- Input: the dashboard's settings page.

const RISK_LIMIT_DECIMALS = 2; // the column is DECIMAL(6,2)

const emptyToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

export const settingsSchema = z
  .object({
    target_wallet_address: z.preprocess(
      emptyToNull,
      tronAddressSchema.nullable(),
    ),
    webhook_url: z.preprocess(
      emptyToNull,
      httpUrlSchema.nullable(),
    ),
    aml_check: z.boolean({ error: 'Must be a boolean.' }),
    /** Retry failed webhooks with backoff for up to three days (docs/webhooks.md); off: sent once (spec 6). */
    webhook_retries: z.boolean({ error: 'Must be a boolean.' }),
    aml_risk_limit: z
      .union([z.number(), z.string()], { error: 'A valid number is required.' })
      .refine((v) => {
        try {
          return parseScaled(v, RISK_LIMIT_DECIMALS) <= BigInt(MAX_AML_RISK_LIMIT) * 10n ** BigInt(RISK_LIMIT_DECIMALS);
        } catch {
          return false;
        }
      }, `Enter a number from 0 to ${MAX_AML_RISK_LIMIT} with at most ${RISK_LIMIT_DECIMALS} decimals.`)
      // The number as parseScaled read it: a string's spaces or tab around the digits (" 5") are
      // dropped here, not handed to the DECIMAL column, which refuses them (issue 27, finding 5).
      .transform((v) => formatScaled(parseScaled(v, RISK_LIMIT_DECIMALS), RISK_LIMIT_DECIMALS)),
  })
  .partial();

export type SettingsInput = z.output<typeof settingsSchema>;

export const ipRuleSchema = z.object({
  rule: z.string().transform((rule, ctx) => {
    try {
      return canonicalIpRule(rule);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof IpRuleError ? err.message : 'Invalid IP rule.' });
      return z.NEVER;
    }
  }),
});

// ---- Output (spec 2.4).

/** The Merchant account object of spec 2.4 (GET /merchant). */
export const merchantAccountSchema = z
  .object({
    email: z.string(),
    balance: z.number().describe('Service-fee balance, TRX'),
    target_wallet_address: z.string().nullable().describe('Where payments are forwarded; null until set'),
    topup_wallet_address: z.string(),
    activation_wallet_address: z.string(),
    activation_balance: z.number().describe('TRX'),
    aml_check: z.boolean(),
    aml_risk_limit: z.number(),
  })
  .meta({ id: 'Merchant', description: 'Spec 2.4' });

export type MerchantAccountJson = z.output<typeof merchantAccountSchema>;
