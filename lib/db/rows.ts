import type { Queryable } from './sql';
import { Prisma, type Invoice, type InvoiceCurrency, type Merchant } from '@/lib/generated/prisma/client';
import { ROW_MODELS } from '@/lib/generated/rowModels';

/**
 * Rows read with `pg` straight from the pool Prisma uses (sqlPool in ./client.ts), as the model
 * objects Prisma would return, for the API's per-request reads (issue 16): a Prisma model query
 * cost 370 µs of CPU against 60 µs for the same SQL through `pg`, which held the API to a fifth
 * of what the SQL allows. The select lists and mappers are derived from the schema (rowsOf below),
 * never written per query; test/unit/db-rows.test.ts compares every column with Prisma's read.
 *
 * pg's defaults: int4 → number, int8 and numeric → string (made BigInt and Decimal here),
 * timestamptz → Date, json → parsed, text[] → string[]; enum arrays are cast to text[] in SQL.
 */

type Row = Record<string, unknown>;

type ModelName = keyof typeof ROW_MODELS;
type ModelField = (typeof ROW_MODELS)[ModelName]['fields'][number];

/** pg's value of a column as Prisma would return its field: int8 and numeric come as text. */
function converter(f: ModelField): (v: unknown) => unknown {
  const orNull = (to: (v: unknown) => unknown) => (f.nullable ? (v: unknown) => (v === null ? null : to(v)) : to);
  if (f.type === 'BigInt') return orNull((v) => BigInt(v as string));
  if (f.type === 'Decimal') return orNull((v) => new Prisma.Decimal(v as string));
  return (v) => v;
}

/**
 * The select list and the row mapper of `model`, both derived from lib/generated/rowModels.ts
 * (made from prisma/schema.prisma at npm install, scripts/rowModels.ts): every column of the
 * model, enum lists cast to text[] (pg has no parser for them), each value converted as Prisma
 * would return it.
 */
function rowsOf<T>(model: ModelName): { columns: (alias?: string) => string; fromRow: (r: Row) => T } {
  const fields: readonly ModelField[] = ROW_MODELS[model].fields;
  const steps = fields.map((f) => [f.field, f.column, converter(f)] as const);
  return {
    columns: (alias) =>
      fields
        .map((f) => {
          const column = alias ? `${alias}.${f.column}` : f.column;
          return f.type === 'Enum' && f.list ? `${column}::text[] AS ${f.column}` : column;
        })
        .join(', '),
    fromRow: (r) => {
      const out: Record<string, unknown> = {};
      for (const [field, column, convert] of steps) out[field] = convert(r[column]);
      return out as T;
    },
  };
}

const merchantRows = rowsOf<Merchant>('Merchant');
const invoiceRows = rowsOf<Invoice>('Invoice');
const invoiceCurrencyRows = rowsOf<InvoiceCurrency>('InvoiceCurrency');

/** A select list of every merchant column, each qualified by the table's alias. */
export const MERCHANT_COLUMNS = (alias: string) => merchantRows.columns(alias);
export const merchantFromRow = merchantRows.fromRow;
export const INVOICE_COLUMNS = (alias: string) => invoiceRows.columns(alias);
export const invoiceFromRow = invoiceRows.fromRow;
export const INVOICE_CURRENCY_COLUMNS = invoiceCurrencyRows.columns();
export const invoiceCurrencyFromRow = invoiceCurrencyRows.fromRow;

const INVOICES_BY_ID_SQL = `SELECT ${INVOICE_COLUMNS('i')} FROM invoices i WHERE i.id = ANY($1::int[]) AND i.merchant_id = $2`;
const AMOUNTS_BY_ID_SQL = `SELECT ${INVOICE_CURRENCY_COLUMNS} FROM invoice_currencies WHERE invoice_id = ANY($1::int[]) ORDER BY invoice_id, currency`;

/** The merchant's invoices with the given ids and their per-token rows, in the order of `ids` (ids not the merchant's are left out). */
export async function invoicesWithAmounts(sql: Queryable, merchantId: number, ids: number[]): Promise<(Invoice & { amounts: InvoiceCurrency[] })[]> {
  if (ids.length === 0) return [];
  const [invoices, amounts] = await Promise.all([
    // Named (prepared) statements: each connection parses and plans them once.
    sql.query({ name: 'invoices-by-id', text: INVOICES_BY_ID_SQL, values: [ids, merchantId] }),
    sql.query({ name: 'invoice-amounts-by-id', text: AMOUNTS_BY_ID_SQL, values: [ids] }),
  ]);
  const byInvoice = new Map<number, InvoiceCurrency[]>();
  for (const row of amounts.rows) {
    const a = invoiceCurrencyFromRow(row);
    const list = byInvoice.get(a.invoiceId);
    if (list) list.push(a);
    else byInvoice.set(a.invoiceId, [a]);
  }
  const byId = new Map(invoices.rows.map((row) => [row.id as number, invoiceFromRow(row)]));
  return ids.flatMap((id) => {
    const invoice = byId.get(id);
    return invoice ? [{ ...invoice, amounts: byInvoice.get(id) ?? [] }] : [];
  });
}
