import type { CsvCell } from '@/lib/export/csv';
import type { Transaction } from '@/lib/generated/prisma/client';
import { transactionJson } from './serialize';

/** Columns of the dashboard's transaction export: the API's Transaction (spec 2.2), the AML check's verdict flattened. */
export const TRANSACTION_CSV_HEADER = [
  'created_at', 'trn_hash', 'invoice', 'type', 'currency', 'amount', 'from_address', 'to_address', 'event_id', 'aml_status', 'aml_risk_score', 'aml_risk_level',
] as const;

export function transactionCsvRow(row: Transaction): CsvCell[] {
  const t = transactionJson(row);
  return [t.created_at, t.trn_hash, t.invoice, t.type, t.currency, t.amount, t.from_address, t.to_address, t.event_id, t.aml_check?.status, t.aml_check?.risk_score, t.aml_check?.risk_level];
}
