import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, fieldErrors, notFound, type AppErrorCode } from '@/lib/errors';
import { errorResponse, httpStatusOf } from '@/lib/http/errors';
import { RateUnavailableError } from '@/lib/rates/http';

/** Domain errors carry a code; lib/http/errors.ts is the one map to HTTP (docs/architecture.md, "Errors"). */
describe('errors with codes, one map at the edge', () => {
  it('maps every code to the status the API has always answered', () => {
    const expected: Record<AppErrorCode, number> = {
      INVALID_INPUT: 400, UNAUTHORIZED: 401, FORBIDDEN: 403, REAUTH_REQUIRED: 403, NOT_FOUND: 404, METHOD_NOT_ALLOWED: 405, CONFLICT: 409, UNPROCESSABLE: 422,
      PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415, RATE_LIMITED: 429, INTERNAL: 500, UPSTREAM_FAILED: 502, UNAVAILABLE: 503,
    };
    for (const [code, status] of Object.entries(expected)) assert.equal(httpStatusOf(code as AppErrorCode), status, code);
  });

  it('writes the spec body: detail, errors per field, code only for reauth, Retry-After only when given', async () => {
    const invalid = errorResponse(fieldErrors({ amount: ['Too small.'], order_id: ['Required.'] }));
    assert.equal(invalid.status, 400);
    assert.equal(await invalid.text(), '{"detail":"amount: Too small.","errors":{"amount":["Too small."],"order_id":["Required."]}}');
    const reauth = errorResponse(new AppError('REAUTH_REQUIRED', 'Wrong password.'));
    assert.equal(reauth.status, 403);
    assert.equal(await reauth.text(), '{"detail":"Wrong password.","code":"reauth_required"}');
    const limited = errorResponse(new AppError('RATE_LIMITED', 'Slow down.', { retryAfterSeconds: 7 }));
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '7');
    const missing = errorResponse(notFound('Not found.'), { allow: 'GET' });
    assert.deepEqual([missing.status, missing.headers.get('retry-after'), missing.headers.get('allow'), missing.headers.get('content-type')], [404, null, 'GET', 'application/json']);
    assert.equal(await missing.text(), '{"detail":"Not found."}');
  });

  it('gives the worker a code, not a status', () => {
    const err = new RateUnavailableError('TRX', 'no quote');
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'UNAVAILABLE');
    assert.equal('status' in err, false);
  });
});
