/**
 * The one error type of the domain (docs/architecture.md, "Errors"). Code under
 * lib/ throws an AppError with a code saying what went wrong; it never picks an
 * HTTP status. The HTTP edge (lib/http/errors.ts) maps each code to a status and
 * the spec's `{"detail": ...}` body (spec part 7); the worker never sees a status.
 */
export type AppErrorCode =
  /** The input is wrong: a field, a parameter, a state the request cannot apply to. */
  | 'INVALID_INPUT'
  /** No credentials where they are needed (a session, a metrics token). */
  | 'UNAUTHORIZED'
  /** Credentials that do not allow this (a bad API key, a cross-site change). */
  | 'FORBIDDEN'
  /** A sensitive change needs the password again (the body also carries `code: reauth_required`). */
  | 'REAUTH_REQUIRED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  /** The request is valid but the resource's state forbids it now. */
  | 'CONFLICT'
  /** Well-formed, but cannot be processed as sent: an Idempotency-Key reused with another request. */
  | 'UNPROCESSABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  /** A service we depend on (the node, the devnet) answered with a failure. */
  | 'UPSTREAM_FAILED'
  /** Cannot be done right now (a rate or the node is unavailable); try again later. */
  | 'UNAVAILABLE'
  | 'INTERNAL';

export interface AppErrorOptions {
  /** Every offending field (`target_wallets[3].address`) to its messages. */
  fieldErrors?: Record<string, string[]>;
  /** For RATE_LIMITED: when the caller may try again. */
  retryAfterSeconds?: number;
  /** Sent as `reason` beside `detail` where the detail is fixed but does not say enough (an IP not whitelisted) or is long (an invoice's minimum in short). */
  reason?: string;
}

export class AppError extends Error {
  readonly fieldErrors?: Record<string, string[]>;
  readonly retryAfterSeconds?: number;
  readonly reason?: string;

  constructor(
    readonly code: AppErrorCode,
    /** The human-readable text the API sends as `detail`. */
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail);
    this.name = 'AppError';
    if (options.fieldErrors) this.fieldErrors = options.fieldErrors;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.reason !== undefined) this.reason = options.reason;
  }
}

export const notFound = (detail: string) => new AppError('NOT_FOUND', detail);
export const invalidInput = (detail: string) => new AppError('INVALID_INPUT', detail);

/** INVALID_INPUT naming the offending field(s): detail mentions the first one, fieldErrors lists them all. */
export function fieldErrors(errors: Record<string, string[]>): AppError {
  const [field, messages] = Object.entries(errors)[0] ?? ['non_field_errors', ['Invalid data.']];
  return new AppError('INVALID_INPUT', `${field}: ${messages?.[0] ?? 'Invalid value.'}`, { fieldErrors: errors });
}
