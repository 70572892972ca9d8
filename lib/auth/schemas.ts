import { z } from 'zod';
import { MAX_API_KEY_LABEL } from './limits';

/** The dashboard's "new API key" body. */
export const newApiKeySchema = z.object({
  label: z.string().trim().min(1, 'This field is required.').max(MAX_API_KEY_LABEL, `Ensure this field has no more than ${MAX_API_KEY_LABEL} characters.`),
});

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
