import { z } from 'zod';

/** Every error the API returns is `{"detail": ...}`, plus `errors` for field validation. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: Record<string, string[]>,
    /** Extra response headers, e.g. Retry-After on a 429. */
    readonly headers?: Record<string, string>,
    /** A machine-readable reason beside `detail`, e.g. `reauth_required`. */
    readonly code?: string,
  ) {
    super(detail);
  }
}

export const notFound = (detail: string) => new ApiError(404, detail);
export const badRequest = (detail: string) => new ApiError(400, detail);

/** A 400 naming the offending field(s): detail mentions the first one, errors lists them all. */
export function fieldErrors(errors: Record<string, string[]>): ApiError {
  const [field, messages] = Object.entries(errors)[0] ?? ['non_field_errors', ['Invalid data.']];
  return new ApiError(400, `${field}: ${messages?.[0] ?? 'Invalid value.'}`, errors);
}

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function errorResponse(err: ApiError, headers?: HeadersInit): Response {
  const body: { detail: string; code?: string; errors?: Record<string, string[]> } = { detail: err.detail };
  if (err.code) body.code = err.code;
  if (err.errors) body.errors = err.errors;
  return jsonResponse(body, err.status, { ...err.headers, ...headers });
}

/** The error body (spec part 7), as the OpenAPI document describes it. */
export const errorBodySchema = z
  .object({
    detail: z.string(),
    errors: z.record(z.string(), z.array(z.string())).optional().describe('400 on invalid fields: every offending field (`target_wallets[3].address`) to its messages'),
  })
  .meta({ id: 'Error', description: 'Spec part 7: {"detail": ...}' });
