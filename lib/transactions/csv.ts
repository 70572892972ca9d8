import type { CsvCell } from '@/lib/export/csv';
import type { PrismaClient, Transaction } from '@/lib/generated/prisma/client';
import { dashboardTransactionRows, type DashboardTransactionRow } from './releases';

/**
 * Columns of the dashboard's transaction export: the API's Transaction (spec 2.2), the AML check's
 * verdict flattened; then each row's own network cost in TRX and its group (issue 38, item 4): the
 * hash of the row the dashboard lists it under (its own for that row), so every movement, the
 * plumbing too, is in the file and each group's rows add up to the cost the list shows.
 */
export const TRANSACTION_CSV_HEADER = [
  'created_at', 'trn_hash', 'invoice', 'type', 'currency', 'amount', 'from_address', 'to_address', 'event_id', 'aml_status', 'aml_risk_score', 'aml_risk_level', 'network_cost_trx', 'group',
] as const;

/** The export's batches as the dashboard's rows: a refund's send is type REFUND there too (docs/refunds.md). */
export async function* dashboardRowBatches(prisma: PrismaClient, batches: AsyncIterable<Transaction[]>): AsyncGenerator<DashboardTransactionRow[]> {
  for await (const batch of batches) yield await dashboardTransactionRows(prisma, batch);
}

export function transactionCsvRow(t: DashboardTransactionRow): CsvCell[] {
  return [t.created_at, t.trn_hash, t.invoice, t.type, t.currency, t.amount, t.from_address, t.to_address, t.event_id, t.aml_check?.status, t.aml_check?.risk_score, t.aml_check?.risk_level, t.network_cost_trx, t.part_of ?? t.trn_hash];
}
