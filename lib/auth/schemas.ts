import { z } from 'zod';
import { MAX_API_KEY_LABEL } from './limits';

/** The dashboard's "new API key" body. */
export const newApiKeySchema = z.object({
  label: z.string().trim().min(1, 'This field is required.').max(MAX_API_KEY_LABEL, `Ensure this field has no more than ${MAX_API_KEY_LABEL} characters.`),
});
