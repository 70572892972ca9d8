import type { Queryable } from './sql';
import { Prisma, type Currency, type EnergySource, type Invoice, type InvoiceCurrency, type InvoiceStatus, type InvoiceType, type Merchant } from '@/lib/generated/prisma/client';

/**
 * Rows read with `pg` straight from the pool Prisma uses (sqlPool in ./client.ts), as the model
 * objects Prisma would return, for the API's per-request reads (issue 16): a Prisma model query
 * cost 370 µs of CPU against 60 µs for the same SQL through `pg`, which held the API to a fifth
 * of what the SQL allows. Each mapper returns the whole model type, so a column added to the
 * schema fails the type check here; test/unit/db-rows.test.ts compares every column with Prisma's read.
 *
 * pg's defaults: int4 → number, int8 and numeric → string (made BigInt and Decimal here),
 * timestamptz → Date, json → parsed, text[] → string[]; enum arrays are cast to text[] in SQL.
 */

type Row = Record<string, unknown>;

const str = (v: unknown) => v as string;
const strOrNull = (v: unknown) => (v === null ? null : (v as string));
const int = (v: unknown) => v as number;
const big = (v: unknown) => BigInt(v as string);
const bigOrNull = (v: unknown) => (v === null ? null : BigInt(v as string));
const dec = (v: unknown) => new Prisma.Decimal(v as string);
const decOrNull = (v: unknown) => (v === null ? null : new Prisma.Decimal(v as string));
const date = (v: unknown) => v as Date;
const dateOrNull = (v: unknown) => (v === null ? null : (v as Date));
const json = (v: unknown) => v as Prisma.JsonValue;

/** A select list: each column qualified by the table's alias `t`. */
const qualified = (columns: string[]) => (t: string) => columns.map((c) => `${t}.${c}`).join(', ');

export const MERCHANT_COLUMNS = qualified(['id', 'email', 'target_wallet_address', 'topup_wallet_address', 'activation_wallet_address', 'webhook_url', 'webhook_secret_enc', 'webhook_retries', 'webhook_held_events', 'webhook_refund_events', 'aml_check', 'aml_risk_limit', 'underpayment_tolerance_percent', 'balance_sun', 'activation_balance_sun', 'ip_whitelist', 'require_two_factor', 'next_address_index', 'account_xpub', 'target_wallet_changed_at', 'store_name', 'support_email', 'support_url', 'logo_url', 'created_at']);

export function merchantFromRow(r: Row): Merchant {
  return {
    id: int(r.id),
    email: str(r.email),
    targetWalletAddress: strOrNull(r.target_wallet_address),
    topupWalletAddress: str(r.topup_wallet_address),
    activationWalletAddress: str(r.activation_wallet_address),
    webhookUrl: strOrNull(r.webhook_url),
    webhookSecretEnc: str(r.webhook_secret_enc),
    webhookRetries: r.webhook_retries as boolean,
    webhookHeldEvents: r.webhook_held_events as boolean,
    webhookRefundEvents: r.webhook_refund_events as boolean,
    amlCheck: r.aml_check as boolean,
    amlRiskLimit: dec(r.aml_risk_limit),
    underpaymentTolerancePercent: dec(r.underpayment_tolerance_percent),
    balanceSun: big(r.balance_sun),
    activationBalanceSun: big(r.activation_balance_sun),
    ipWhitelist: r.ip_whitelist as string[],
    requireTwoFactor: r.require_two_factor as boolean,
    nextAddressIndex: int(r.next_address_index),
    accountXpub: strOrNull(r.account_xpub),
    targetWalletChangedAt: dateOrNull(r.target_wallet_changed_at),
    storeName: strOrNull(r.store_name),
    supportEmail: strOrNull(r.support_email),
    supportUrl: strOrNull(r.support_url),
    logoUrl: strOrNull(r.logo_url),
    createdAt: date(r.created_at),
  };
}

export const INVOICE_COLUMNS = qualified(['id', 'merchant_id', 'type', 'status', 'amount_usd', 'currencies::text[] AS currencies', 'order_id', 'address', 'address_index', 'private_key_enc', 'client_commission', 'underpayment_tolerance_percent', 'webhook_url', 'redirect_url', 'description', 'customer_email', 'target_wallets', 'failed_targets', 'lease_owner', 'lease_until', 'cost_units', 'cost_currency', 'quoted_energy_source', 'network_cost_sun', 'expired_at', 'created_at', 'updated_at']);

export function invoiceFromRow(r: Row): Invoice {
  return {
    id: int(r.id),
    merchantId: int(r.merchant_id),
    type: r.type as InvoiceType,
    status: r.status as InvoiceStatus,
    amountUsd: decOrNull(r.amount_usd),
    currencies: r.currencies as Currency[],
    orderId: strOrNull(r.order_id),
    address: str(r.address),
    addressIndex: int(r.address_index),
    privateKeyEnc: strOrNull(r.private_key_enc),
    clientCommission: r.client_commission as boolean,
    underpaymentTolerancePercent: dec(r.underpayment_tolerance_percent),
    webhookUrl: strOrNull(r.webhook_url),
    redirectUrl: strOrNull(r.redirect_url),
    description: strOrNull(r.description),
    customerEmail: strOrNull(r.customer_email),
    targetWallets: json(r.target_wallets),
    failedTargets: json(r.failed_targets),
    leaseOwner: strOrNull(r.lease_owner),
    leaseUntil: dateOrNull(r.lease_until),
    costUnits: bigOrNull(r.cost_units),
    costCurrency: r.cost_currency as Currency | null,
    quotedEnergySource: r.quoted_energy_source as EnergySource | null,
    networkCostSun: big(r.network_cost_sun),
    expiredAt: date(r.expired_at),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  };
}

export const INVOICE_CURRENCY_COLUMNS = 'invoice_id, currency, rate_usd, due_units, fee_units, received_units, forwarded_units';

export function invoiceCurrencyFromRow(r: Row): InvoiceCurrency {
  return {
    invoiceId: int(r.invoice_id),
    currency: r.currency as Currency,
    rateUsd: dec(r.rate_usd),
    dueUnits: big(r.due_units),
    feeUnits: big(r.fee_units),
    receivedUnits: big(r.received_units),
    forwardedUnits: big(r.forwarded_units),
  };
}

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
