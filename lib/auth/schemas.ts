import { z } from 'zod';

/** Longest API key label (the dashboard's form limit too). */
export const MAX_API_KEY_LABEL = 100;

/** The dashboard's "new API key" body. */
export const newApiKeySchema = z.object({
  label: z.string().trim().min(1, 'This field is required.').max(MAX_API_KEY_LABEL, `Ensure this field has no more than ${MAX_API_KEY_LABEL} characters.`),
});
