import { z } from 'zod';
import type { AppError, AppErrorCode } from '@/lib/errors';

/**
 * The HTTP edge's one map from a domain error code to a status (spec part 7).
 * Nothing under lib/ outside lib/http names a status; it throws an AppError.
 */
const HTTP_STATUS: Record<AppErrorCode, number> = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  REAUTH_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  UNPROCESSABLE: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
  UNAVAILABLE: 503,
};

/** The machine-readable `code` sent beside `detail` where the dashboard acts on it; other codes send none. */
const BODY_CODE: Partial<Record<AppErrorCode, string>> = { REAUTH_REQUIRED: 'reauth_required' };

export function httpStatusOf(code: AppErrorCode): number {
  return HTTP_STATUS[code];
}

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * The one builder of the error body (spec part 7): `{"detail": ...}`, and for an AppError its
 * `code` where one is sent, `reason` where one is given, `errors` per field and Retry-After on a 429.
 * Text and headers rather than a Response, because server.ts writes them to a raw ServerResponse
 * or socket, for errors met before there is a Request (it adds the length and its own headers).
 */
export function errorBody(err: AppError | string, headers?: Record<string, string>): { body: string; headers: Record<string, string> } {
  if (typeof err === 'string') return { body: JSON.stringify({ detail: err }), headers: { 'content-type': 'application/json', ...headers } };
  const body: { detail: string; code?: string; reason?: string; errors?: Record<string, string[]> } = { detail: err.detail };
  const code = BODY_CODE[err.code];
  if (code) body.code = code;
  if (err.reason) body.reason = err.reason;
  if (err.fieldErrors) body.errors = err.fieldErrors;
  const retryAfter: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : {};
  return { body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...retryAfter, ...headers } };
}

/** Any AppError as the spec's `{"detail": ...}` response, at the status of its code (errorBody). */
export function errorResponse(err: AppError, headers?: Record<string, string>): Response {
  const { body, headers: head } = errorBody(err, headers);
  return new Response(body, { status: httpStatusOf(err.code), headers: head });
}

/** The error body (spec part 7), as the OpenAPI document describes it. */
export const errorBodySchema = z
  .object({
    detail: z.string(),
    reason: z
      .string()
      .optional()
      .describe('Added where the detail is fixed or says too much: on a 403 from a caller whose IP address is not whitelisted, why, alone (the detail says it after the spec\'s `Invalid API key: `); on a 400 for an invoice amount too small to forward, the minimum in short ("The minimum for USDT is 2.54 USD.")'),
    errors: z.record(z.string(), z.array(z.string())).optional().describe('400 on invalid fields: every offending field (`target_wallets[3].address`) to its messages'),
  })
  .meta({ id: 'Error', description: 'Spec part 7: {"detail": ...}' });
