import type { z } from 'zod';
import type { amlCheckSchema } from '@/lib/transactions/schemas';
import { isoMicro } from '@/lib/time';
import { AmlConfigError, AmlTimeoutError, type AmlProvider, type AmlRequest, type AmlStatus } from './provider';

/** The aml_check object of spec 2.3, as stored on the transaction (`transactions.aml_check`); its schema is lib/transactions/schemas.ts. */
export type AmlCheckRecord = z.output<typeof amlCheckSchema>;

/**
 * Runs a check and never throws: a timeout or provider error is recorded as
 * such. `passed` says whether the funds may go on to the merchant: a provider
 * outage (timeout, 5xx) does not hold a customer's payment hostage (fail-open,
 * recorded); a provider that refuses our credentials or configuration fails
 * closed: `hold` says why the payment must be held instead (case 10).
 */
export async function runAmlCheck(provider: AmlProvider, request: AmlRequest, riskLimit: number, costTrx: number): Promise<{ record: AmlCheckRecord; passed: boolean; hold?: string }> {
  const createdAt = isoMicro(new Date());
  try {
    const r = await provider.check(request);
    const failed = r.riskScore > riskLimit;
    return {
      passed: !failed,
      record: { id: r.id, status: failed ? 'FAILED' : 'SUCCESS', risk_score: r.riskScore, risk_level: r.riskLevel, exposure: r.exposure, report_url: r.reportUrl, cost: costTrx, completed: true, created_at: createdAt },
    };
  } catch (err) {
    const status: AmlStatus = err instanceof AmlTimeoutError ? 'TIMEOUT' : 'ERROR';
    const closed = err instanceof AmlConfigError;
    if (closed) console.error(`ALERT AML check for ${request.txId} refused by the provider, payment held: ${(err as Error).message}`);
    else console.warn(`AML check for ${request.txId} ended in ${status}: ${(err as Error).message}`);
    return {
      passed: !closed,
      ...(closed && { hold: `AML check not possible, held until the provider accepts our checks: ${(err as Error).message}` }),
      record: { id: '', status, risk_score: 0, risk_level: 'low', exposure: {}, report_url: '', cost: 0, completed: false, created_at: createdAt },
    };
  }
}
