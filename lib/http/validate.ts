import type { z } from 'zod';
import { fieldErrors } from './errors';

/** `target_wallets[3].address` style names, matching what clients send. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part)), '') || 'non_field_errors';
}

/** Paths of the strings under `data` that hold a NUL character, which PostgreSQL text cannot store. */
function nulStringPaths(data: unknown, path: PropertyKey[] = []): PropertyKey[][] {
  if (typeof data === 'string') return data.includes('\u0000') ? [path] : [];
  if (Array.isArray(data)) return data.flatMap((v, i) => nulStringPaths(v, [...path, i]));
  if (typeof data === 'object' && data !== null) return Object.entries(data).flatMap(([k, v]) => nulStringPaths(v, [...path, k]));
  return [];
}

/** Parses with a zod schema or throws the API's 400 naming every offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const errors: Record<string, string[]> = {};
  for (const path of nulStringPaths(data)) errors[fieldName(path)] = ['Null characters are not allowed.'];
  if (Object.keys(errors).length) throw fieldErrors(errors);
  const result = schema.safeParse(data, { reportInput: true });
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    // A missing field fails its type or enum check with no input: say so, as Django REST framework does.
    const missing = (issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input === undefined;
    const message = missing ? 'This field is required.' : issue.message;
    (errors[fieldName(issue.path)] ??= []).push(message);
  }
  throw fieldErrors(errors);
}
