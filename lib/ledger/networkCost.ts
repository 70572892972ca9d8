import type { PrismaClient } from '@/lib/generated/prisma/client';
import { execute, sql, type PrismaRaw } from '@/lib/db/sql';

/** Deltas folded per transaction: a round's worth on a busy service, a short lock on each invoice. */
const BATCH = 500;

/**
 * Folds what the ledger booked as an invoice's network cost (invoice_network_cost_deltas, written by
 * the ledger's trigger for every NETWORK_COST and ENERGY_RENTAL row booked on an invoice; migration
 * 0082) into invoices.network_cost_sun, the API's `network_cost_trx` (docs/energy.md, "What it costs,
 * and who pays"). The one writer of that column (test/unit/architecture.test.ts). Each delta is deleted
 * in the transaction that adds it, so none counts twice; rows another worker is folding are skipped.
 * Returns how many were folded.
 */
export async function foldNetworkCosts(prisma: PrismaRaw): Promise<number> {
  return execute(prisma, sql`
    WITH taken AS (
      DELETE FROM invoice_network_cost_deltas
       WHERE id IN (SELECT id FROM invoice_network_cost_deltas ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING invoice_id, sun
    ), summed AS (SELECT invoice_id, SUM(sun)::bigint AS sun FROM taken GROUP BY invoice_id)
    UPDATE invoices i SET network_cost_sun = i.network_cost_sun + summed.sun FROM summed WHERE i.id = summed.invoice_id`);
}

/** What the ledger booked for each invoice and the worker has not folded in yet (reconcile counts it): the query, for reconcile's snapshot. */
export function unfoldedNetworkCostsQuery(prisma: Pick<PrismaClient, 'invoiceNetworkCostDelta'>) {
  return prisma.invoiceNetworkCostDelta.groupBy({ by: ['invoiceId'], _sum: { sun: true } });
}

/** unfoldedNetworkCostsQuery's rows, by invoice. */
export function unfoldedByInvoice(rows: Awaited<ReturnType<typeof unfoldedNetworkCostsQuery>>): Map<number, bigint> {
  return new Map(rows.map((r) => [r.invoiceId, r._sum.sun ?? 0n]));
}
