import type { CsvCell } from '@/lib/export/csv';
import { invoiceJson, type InvoiceRecord } from './serialize';

/** Columns of the dashboard's invoice export: the API's Invoice (spec 2.1) flattened, token amounts one column each. */
export const INVOICE_CSV_HEADER = [
  'id', 'created_at', 'status', 'type', 'amount_usd', 'currencies',
  'due_trx', 'due_usdt', 'received_trx', 'received_usdt', 'forwarded_trx', 'forwarded_usdt', 'cost',
  'order_id', 'description', 'address', 'client_commission', 'expired_at', 'payment_url',
] as const;

export function invoiceCsvRow(record: InvoiceRecord): CsvCell[] {
  const i = invoiceJson(record);
  return [
    i.id, i.created_at, i.status, i.type, i.amount, i.currencies.join(' '),
    i.currencies_amounts.TRX, i.currencies_amounts.USDT, i.transfer_amounts.input.TRX, i.transfer_amounts.input.USDT,
    i.transfer_amounts.output.TRX, i.transfer_amounts.output.USDT, i.cost,
    i.order_id, i.description, i.address, i.client_commission, i.expired_at, i.paymentURL,
  ];
}
