import { z } from 'zod';

/** Longest API key label (the dashboard's form limit too). */
export const MAX_API_KEY_LABEL = 100;
/** The AML risk limit is a score from 0 to this (spec 2.4). */
export const MAX_AML_RISK_LIMIT = 100;

export const newApiKeySchema = z.object({
  label: z.string().trim().min(1, 'This field is required.').max(MAX_API_KEY_LABEL, `Ensure this field has no more than ${MAX_API_KEY_LABEL} characters.`),
});

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
