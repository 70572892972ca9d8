import { z } from 'zod';

/** The AML risk limit is a score from 0 to this (spec 2.4). */
export const MAX_AML_RISK_LIMIT = 100;

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
