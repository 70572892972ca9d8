import assert from 'node:assert/strict';
import type { Chain } from '@/lib/chain/types';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { parseWorkerSettings } from '@/lib/config';
import { reconcile, type ReconcileRules } from '@/lib/reconcile/reconcile';
import type { RentalClient } from '@/lib/energy/rental';
import { waitFor } from './wait';

const worker = parseWorkerSettings({});
/** The rules of the app and worker the tests start (test/helpers/app.ts sets FORWARDING_FEE_PERCENT=1; the rest are the defaults). */
export const TEST_RULES: ReconcileRules = { forwardingFeePercent: '1', topupFeePercent: '1', tolerancePercent: worker.PAYMENT_TOLERANCE_PERCENT, toleranceMaxUsd: worker.PAYMENT_TOLERANCE_MAX_USD };

/**
 * Runs the reconciliation `npm run reconcile` runs and fails with its
 * mismatches. Call it at the end of a suite that moved money, once the worker
 * has nothing in progress (waits up to `timeoutMs` for payments to close).
 */
export async function assertReconciled(prisma: PrismaClient, chain: Chain, timeoutMs = 30_000, rules: ReconcileRules = TEST_RULES, rentalProvider?: RentalClient): Promise<void> {
  let last = await reconcile(prisma, chain, rules, rentalProvider);
  const balanced = () => last.paymentsInProgress === 0 && last.mismatches.length === 0;
  // Most suites end balanced: a second reconcile at once (waitFor probes before it waits) read every
  // address, send and receipt again for nothing, about a second of the test, its devnet and database each.
  if (!balanced()) {
    await waitFor('every payment closed and the books balanced', async () => {
      last = await reconcile(prisma, chain, rules, rentalProvider);
      return balanced();
    }, timeoutMs).catch(() => undefined);
  }
  assert.deepEqual(last.mismatches, [], `reconcile: ${last.mismatches.length} mismatches (${last.paymentsInProgress} payments in progress)\n${last.mismatches.join('\n')}`);
  assert.equal(last.paymentsInProgress, 0, 'payments still in progress at the end of the suite');
}
