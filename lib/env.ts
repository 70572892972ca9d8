import type { z } from 'zod';

/**
 * Validates environment variables with a zod schema, naming every bad variable
 * in one error. Empty strings count as unset, so `FOO=` falls back to the default.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>, what: string): z.output<S> {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid ${what}:\n${lines.join('\n')}`);
  }
  return result.data;
}
