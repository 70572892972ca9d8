import { z } from 'zod';
import { canonicalIpRule, IpRuleError } from '@/lib/ipAllowList';
import { MAX_API_KEY_IP_RULES, MAX_API_KEY_LABEL } from './limits';
import { API_KEY_SCOPES } from './scopes';

/**
 * An IP address or CIDR range as a rule stores it: canonical ("10.0.0.5/8" is "10.0.0.0/8"), or
 * refused with what is wrong with it. The store's whitelist and each key's allow-list read rules so.
 */
export const ipRuleTextSchema = z.string().transform((rule, ctx) => {
  try {
    return canonicalIpRule(rule);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof IpRuleError ? err.message : 'Invalid IP rule.' });
    return z.NEVER;
  }
});

/**
 * A key's own IP allow-list: rules, each once, in the order given. Empty: the key may be used
 * wherever the store's whitelist allows.
 */
const keyIpRulesSchema = z
  .array(ipRuleTextSchema)
  .max(MAX_API_KEY_IP_RULES, `At most ${MAX_API_KEY_IP_RULES} addresses or ranges per key.`)
  .transform((rules) => [...new Set(rules)]);

/**
 * The dashboard's "new API key" body. `scopes` left out is every scope, as keys made before
 * scopes have (issue 40); a key that may call nothing, or a scope no route checks, is refused.
 */
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

/**
 * A passkey's answer to a challenge (lib/auth/passkeys.ts): the challenge's id as the options
 * answered it, and the browser's credential as @simplewebauthn/browser serialises it. Only its
 * shape is checked here; @simplewebauthn/server checks what it says.
 */
export const passkeyResponseSchema = z.object({
  challenge_id: z.number({ error: 'This field is required.' }).int().positive(),
  response: z.looseObject({ id: z.string().min(1).max(1024), rawId: z.string().max(1024), type: z.literal('public-key'), response: z.looseObject({ clientDataJSON: z.string().max(65536) }) }),
});

export type PasskeyResponse = z.output<typeof passkeyResponseSchema>;

/** A passkey's new label. */
export const passkeyNameSchema = z.object({
  name: z.string({ error: 'This field is required.' }).trim().min(1, 'This field is required.').max(64, 'Ensure this field has no more than 64 characters.'),
});

/** A new passkey: the registration's answer and the user's label for it. */
export const newPasskeySchema = passkeyResponseSchema.extend({
  name: z.string().trim().max(64, 'Ensure this field has no more than 64 characters.').optional(),
});

/**
 * A passkey's answer as a form field or header carries it (sign-in's `passkey` credential,
 * re-authentication's X-Confirm-Passkey): JSON text, read to the same shape, or null when it is
 * not one.
 */
export function passkeyResponseFrom(text: string | null | undefined): PasskeyResponse | null {
  if (!text) return null;
  try {
    const parsed = passkeyResponseSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
