import type { z } from 'zod';
import { fieldErrors } from './errors';

/** `target_wallets[3].address` style names, matching what clients send. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part)), '') || 'non_field_errors';
}

/** Parses with a zod schema or throws the API's 400 naming every offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const message = issue.code === 'invalid_type' && issue.input === undefined ? 'This field is required.' : issue.message;
    (errors[fieldName(issue.path)] ??= []).push(message);
  }
  throw fieldErrors(errors);
}
