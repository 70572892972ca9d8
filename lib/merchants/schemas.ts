import { z } from 'zod';
import { canonicalIpRule, IpRuleError } from '@/lib/auth/ipAllowList';
import { isTronAddress } from '@/lib/chain/keys';
import { httpUrlSchema } from '@/lib/schemas/url';
import { parseScaled } from '@/lib/money/decimal';
import { MAX_AML_RISK_LIMIT } from './limits';

// ---- Input: the dashboard's settings page.

const RISK_LIMIT_DECIMALS = 2; // the column is DECIMAL(6,2)

const emptyToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

export const settingsSchema = z
  .object({
    target_wallet_address: z.preprocess(
      emptyToNull,
      z.string().trim().refine(isTronAddress, 'Enter a valid Tron address (T..., 34 characters).').nullable(),
    ),
    webhook_url: z.preprocess(
      emptyToNull,
      httpUrlSchema.nullable(),
    ),
    aml_check: z.boolean({ error: 'Must be a boolean.' }),
    aml_risk_limit: z
      .union([z.number(), z.string()], { error: 'A valid number is required.' })
      .refine((v) => {
        try {
          return parseScaled(v, RISK_LIMIT_DECIMALS) <= BigInt(MAX_AML_RISK_LIMIT) * 10n ** BigInt(RISK_LIMIT_DECIMALS);
        } catch {
          return false;
        }
      }, `Enter a number from 0 to ${MAX_AML_RISK_LIMIT} with at most ${RISK_LIMIT_DECIMALS} decimals.`)
      .transform(String),
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
