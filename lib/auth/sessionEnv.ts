import { z } from 'zod';
import { parseEnv } from '@/lib/env';

const schema = z.object({
  NEXTAUTH_SECRET: z.string().min(32, 'NEXTAUTH_SECRET must be at least 32 characters (e.g. 32 random bytes, base64url)'),
  /** The dashboard's public origin; next-auth builds its redirects from it. */
  NEXTAUTH_URL: z.url().optional(),
});

export type SessionEnv = z.output<typeof schema>;

/** The dashboard session's settings; kept apart from next-auth so the server can check them at start-up. */
export function parseSessionEnv(env: Record<string, string | undefined>): SessionEnv {
  return parseEnv(schema, env, 'dashboard session configuration');
}
