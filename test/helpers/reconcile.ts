import assert from 'node:assert/strict';
import type { Chain } from '@/lib/chain/types';
import type { PrismaClient } from '@/lib/generated/prisma/client';
import { reconcile } from '@/lib/ledger/reconcile';
import { waitFor } from './devnet';

/**
 * Runs the reconciliation `npm run reconcile` runs and fails with its
 * mismatches. Call it at the end of a suite that moved money, once the worker
 * has nothing in progress (waits up to `timeoutMs` for payments to close).
 */
export async function assertReconciled(prisma: PrismaClient, chain: Chain, timeoutMs = 30_000): Promise<void> {
  let last = await reconcile(prisma, chain);
  await waitFor('every payment closed and the books balanced', async () => {
    last = await reconcile(prisma, chain);
    return last.paymentsInProgress === 0 && last.mismatches.length === 0;
  }, timeoutMs).catch(() => undefined);
  assert.deepEqual(last.mismatches, [], `reconcile: ${last.mismatches.length} mismatches (${last.paymentsInProgress} payments in progress)\n${last.mismatches.join('\n')}`);
  assert.equal(last.paymentsInProgress, 0, 'payments still in progress at the end of the suite');
}
