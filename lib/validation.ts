import type { z } from 'zod';
import { fieldErrors, invalidInput } from '@/lib/errors';

/** `target_wallets[3].address` style names, matching what clients send. */
function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part)), '') || 'non_field_errors';
}

/** Deepest nesting of arrays and objects a request may send; real bodies use three levels. */
export const MAX_JSON_DEPTH = 32;

export const tooDeep = () => invalidInput(`JSON parse error - nesting deeper than ${MAX_JSON_DEPTH} levels is not accepted`);

/**
 * Paths of the strings under `data` that hold a NUL character, which PostgreSQL
 * text cannot store. Iterative, with the depth cap, so no body can exhaust the
 * stack (a 3.7 KB body nested 1,850 deep once did, answering 500).
 */
function nulStringPaths(data: unknown): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: data, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) found.push(path);
    } else if (typeof value === 'object' && value !== null) {
      if (path.length >= MAX_JSON_DEPTH) throw tooDeep();
      const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
      // Pushed in reverse so fields are reported in document order.
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] });
    }
  }
  return found;
}

/** Parses with a zod schema or throws INVALID_INPUT naming every offending field (the API's 400). */
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
