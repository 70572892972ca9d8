import { MEMBER_ROLES } from '@/lib/auth/roles';
import { z } from 'zod';
import { ipRuleTextSchema } from '@/lib/auth/schemas';
import { tronAddressSchema } from '@/lib/schemas/tronAddress';
import { httpUrlSchema } from '@/lib/schemas/url';
import { formatScaled, parseScaled } from '@/lib/money/decimal';
import { MAX_AML_RISK_LIMIT, MAX_STORE_NAME, MAX_SUPPORT_EMAIL, MAX_UNDERPAYMENT_TOLERANCE_PERCENT } from './limits';

// ---- Input: the dashboard's settings page.

const RISK_LIMIT_DECIMALS = 2; // the columns are DECIMAL(6,2) (AML) and DECIMAL(5,2) (tolerance)

const emptyToNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

// ---- The merchant's profile, shown to customers on the payment page (issue 26).

/** Printable text on one line: the name is shown to customers, so no control or layout characters. */
const storeNameSchema = z
  .string({ error: 'Enter the store name as text.' })
  .trim()
  .min(1, 'Enter the store name.')
  .max(MAX_STORE_NAME, `Ensure this field has no more than ${MAX_STORE_NAME} characters.`)
  // Control characters and the bidirectional overrides, which could make the header read as something else.
  .refine((v) => !/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(v), 'The store name may not contain control or text-direction characters.');

const supportEmailSchema = z
  .string({ error: 'Enter a valid e-mail address.' })
  .trim()
  .max(MAX_SUPPORT_EMAIL, `Ensure this field has no more than ${MAX_SUPPORT_EMAIL} characters.`)
  .pipe(z.email('Enter a valid e-mail address.'));

/**
 * The logo is an https URL the customer's browser loads (so it is never mixed content); the
 * server never fetches it, so it cannot be turned against the service's own network. A host
 * that is an IP address or `localhost` is refused all the same: a customer's browser would
 * request it from the customer's own network.
 */
const logoUrlSchema = httpUrlSchema.refine((v) => v.startsWith('https://'), 'The logo URL must start with https://.').refine((v) => {
  const host = new URL(v).hostname;
  return !(host === 'localhost' || host.endsWith('.localhost') || /^\d+(\.\d+){3}$/.test(host) || host.startsWith('['));
}, 'The logo URL must name a public host, not an IP address or localhost.');

/** A number from 0 to `max` with at most two decimals (the columns are DECIMAL(6,2) and (5,2)), as a number or a string; kept as its decimal text. */
function decimalUpTo(max: number) {
  return (
    z
      .union([z.number(), z.string()], { error: 'A valid number is required.' })
      .refine((v) => {
        try {
          return parseScaled(v, RISK_LIMIT_DECIMALS) <= BigInt(max) * 10n ** BigInt(RISK_LIMIT_DECIMALS);
        } catch {
          return false;
        }
      }, `Enter a number from 0 to ${max} with at most ${RISK_LIMIT_DECIMALS} decimals.`)
      // The number as parseScaled read it: a string's spaces or tab around the digits (" 5") are
      // dropped here, not handed to the DECIMAL column, which refuses them (issue 27, finding 5).
      .transform((v) => formatScaled(parseScaled(v, RISK_LIMIT_DECIMALS), RISK_LIMIT_DECIMALS))
  );
}

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
    /** Shown in the payment page's header; empty or null: the page says only "Payment #N". */
    store_name: z.preprocess(emptyToNull, storeNameSchema.nullable()),
    /** Where the payment page tells customers to contact the merchant: a mailto link. */
    support_email: z.preprocess(emptyToNull, supportEmailSchema.nullable()),
    /** Or a support page (http or https), linked the same way. */
    support_url: z.preprocess(emptyToNull, httpUrlSchema.nullable()),
    /** An https image shown beside the store name (the browser loads it, the server never does). */
    logo_url: z.preprocess(emptyToNull, logoUrlSchema.nullable()),
    /** Retry failed webhooks with backoff for up to three days (docs/webhooks.md); off: sent once (spec 6). */
    webhook_retries: z.boolean({ error: 'Must be a boolean.' }),
    /** Send the signed "payment.held" webhook when a payment is held (docs/webhooks.md); off: only spec 6's statuses. */
    webhook_held_events: z.boolean({ error: 'Must be a boolean.' }),
    /** Send the signed refund.* webhooks (docs/webhooks.md); off: only spec 6's statuses. */
    webhook_refund_events: z.boolean({ error: 'Must be a boolean.' }),
    aml_risk_limit: decimalUpTo(MAX_AML_RISK_LIMIT),
    /** A SINGLE invoice paid within this percentage short of its amount is COMPLETED (issue 36); 0: the service's own band only. */
    underpayment_tolerance_percent: decimalUpTo(MAX_UNDERPAYMENT_TOLERANCE_PERCENT),
    /** Every member must sign in with a second factor (issue 40): an owner's, who has one (lib/auth/storeTwoFactor.ts). */
    require_two_factor: z.boolean({ error: 'Must be a boolean.' }),
  })
  .partial();

export type SettingsInput = z.output<typeof settingsSchema>;

export const ipRuleSchema = z.object({ rule: ipRuleTextSchema });

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
  .meta({ id: 'Merchant', description: 'The merchant\'s account' });

export type MerchantAccountJson = z.output<typeof merchantAccountSchema>;

/** A member's new role (PATCH /dashboard/api/members/:userId). */
export const memberRoleSchema = z.object({
  role: z.enum(MEMBER_ROLES, { error: `Must be one of ${MEMBER_ROLES.join(', ')}.` }),
});
