import { z } from 'zod';
import { canonicalIpRule, IpRuleError } from '@/lib/ipAllowList';
import { MAX_API_KEY_IP_RULES, MAX_API_KEY_LABEL } from './limits';
import { API_KEY_SCOPES } from './scopes';

/**
 * The dashboard's "new API key" body. `scopes` left out is every scope, as keys made before
 * scopes have (issue 40); a key that may call nothing, or a scope no route checks, is refused.
 */
/**
 * A key's own IP allow-list: addresses and CIDR ranges, each stored canonical ("10.0.0.5/8" is
 * "10.0.0.0/8") and once, in the order given. Empty: the key may be used wherever the store's
 * whitelist allows.
 */
const keyIpRulesSchema = z
  .array(
    z.string().transform((rule, ctx) => {
      try {
        return canonicalIpRule(rule);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof IpRuleError ? err.message : 'Invalid IP rule.' });
        return z.NEVER;
      }
    }),
  )
  .max(MAX_API_KEY_IP_RULES, `At most ${MAX_API_KEY_IP_RULES} addresses or ranges per key.`)
  .transform((rules) => [...new Set(rules)]);

export const newApiKeySchema = z.object({
  label: z.string().trim().min(1, 'This field is required.').max(MAX_API_KEY_LABEL, `Ensure this field has no more than ${MAX_API_KEY_LABEL} characters.`),
  scopes: z
    .array(z.enum(API_KEY_SCOPES, { error: (issue) => `Unknown scope ${JSON.stringify(issue.input)}; the scopes are ${API_KEY_SCOPES.join(', ')}.` }))
    .min(1, `Choose at least one scope of ${API_KEY_SCOPES.join(', ')}.`)
    .optional(),
  allowed_ips: keyIpRulesSchema.optional(),
});

/** The dashboard's change of a key's own IP allow-list: the whole list, replacing the key's. */
export const apiKeyIpsSchema = z.object({ allowed_ips: keyIpRulesSchema });

/** A sign-up's or sign-in's e-mail and password. */
export const credentialsSchema = z.object({
  email: z.string().trim().toLowerCase().max(254).pipe(z.email('Enter a valid e-mail address.')),
  // bcrypt reads at most 72 bytes; longer passwords would be silently truncated.
  password: z
    .string()
    .min(10, 'Use at least 10 characters.')
    .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, 'Use at most 72 bytes.'),
});

export type Credentials = z.output<typeof credentialsSchema>;

/** A code from the authenticator app (6 digits) or a recovery code (xxxxx-xxxxx), as typed. */
export const twoFactorCodeSchema = z.object({
  code: z.string({ error: 'This field is required.' }).trim().min(1, 'This field is required.').max(64, 'Ensure this field has no more than 64 characters.'),
});
