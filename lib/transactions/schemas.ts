import { z } from 'zod';
import { TransactionType } from '@/lib/generated/prisma/enums';
import { dateSchema, orderingSchema, upperCase } from '@/lib/schemas/listQuery';
import { pageQuerySchema } from '@/lib/schemas/page';
import { currencySchema } from '@/lib/money/tokens';
import { timestampSchema } from '@/lib/invoices/schemas';

export const MAX_TRANSACTION_PAGE = 300;
export const TRANSACTION_ORDERING = ['created_at', 'amount', 'status'] as const;

/**
 * The transaction types of spec 2.2, the only ones the merchant API (/v1/api) answers or filters
 * by. The rest of TransactionType are the energy pool's own operations (DELEGATE, UNDELEGATE, STAKE,
 * UNSTAKE, WITHDRAW): not merchant transactions, their cost is in the invoice's network_cost_trx;
 * only the dashboard shows them (docs/api.md, "Transactions").
 */
export const API_TRANSACTION_TYPES = ['PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION'] as const satisfies readonly TransactionType[];
export type ApiTransactionType = (typeof API_TRANSACTION_TYPES)[number];

export function isApiTransactionType(type: TransactionType): type is ApiTransactionType {
  return (API_TRANSACTION_TYPES as readonly TransactionType[]).includes(type);
}

/** Who a transaction list is for: the merchant API (spec types only) or the dashboard (every type, pool operations too). */
export type TransactionAudience = 'api' | 'dashboard';

const TYPE_ERROR = 'Must be PAYMENT, TRANSFER, TOPUP or ACTIVATION.';

const transactionsQuerySchema = <T extends readonly [TransactionType, ...TransactionType[]]>(types: T) =>
  pageQuerySchema(MAX_TRANSACTION_PAGE).extend({
    type: z.preprocess(upperCase, z.enum(types, { error: TYPE_ERROR })).optional(),
    invoice_id: z.string().regex(/^\d{1,9}$/, 'invoice_id must be an invoice id.').transform(Number).optional(),
    from_address: z.string().trim().min(1).optional(),
    to_address: z.string().trim().min(1).optional(),
    trn_hash: z.string().trim().min(1).optional(),
    has_aml: z.enum(['true', 'false', 'True', 'False', '1', '0'], { error: 'has_aml must be true or false.' }).transform((v) => v === 'true' || v === 'True' || v === '1').optional().describe('Whether an AML check exists'),
    currency: z.preprocess(upperCase, currencySchema).optional(),
    date_from: dateSchema('date_from').optional(),
    date_to: dateSchema('date_to').optional(),
    ordering: orderingSchema(TRANSACTION_ORDERING).default('-created_at'),
    search: z.string().trim().max(200).optional().describe('Substring of trn_hash, from_address or to_address, exact invoice_id, a type or a currency'),
  });

/** GET /v1/api/transaction/list (spec 4.7): `type` is one of the spec's four; any other is 400 naming `type`. */
export const listTransactionsQuerySchema = transactionsQuerySchema(API_TRANSACTION_TYPES);

/** The dashboard's transaction list and CSV export: `type` may also name a pool operation, which the dashboard shows. */
export const dashboardTransactionsQuerySchema = transactionsQuerySchema(Object.values(TransactionType) as [TransactionType, ...TransactionType[]]);

export type ListTransactionsQuery = z.output<typeof dashboardTransactionsQuerySchema>;

// ---- Responses (spec 2.2, 2.3).

export const amlCheckSchema = z
  .object({
    id: z.string(),
    status: z.enum(['SUCCESS', 'FAILED', 'TIMEOUT', 'ERROR']),
    risk_score: z.number(),
    risk_level: z.string().describe('low, medium or high'),
    exposure: z.record(z.string(), z.number()),
    report_url: z.string().describe('PDF report; empty when the check did not complete'),
    cost: z.number().describe('TRX'),
    completed: z.boolean(),
    created_at: timestampSchema,
  })
  .meta({ id: 'AmlCheck' });

export const transactionSchema = z
  .object({
    trn_hash: z.string(),
    invoice: z.int().nullable().describe('Null for a transaction of no invoice (e.g. a balance top-up)'),
    type: z.enum(API_TRANSACTION_TYPES).describe('Spec 2.2: the energy pool\'s own operations are never listed (docs/api.md)'),
    from_address: z.string(),
    to_address: z.string(),
    amount: z.number().describe('In `currency`'),
    currency: currencySchema,
    aml_check: amlCheckSchema.nullable(),
    held: z
      .object({ reason: z.string().describe('Why the service keeps the funds at the address instead of forwarding them') })
      .nullable()
      .describe('Added to spec 2.2 (which has no status): set while the payment is held; its merchant releases it from the dashboard (docs/api.md)'),
    event_id: z.string().nullable().describe('UUID shared by an incoming payment and its forwarding'),
    created_at: timestampSchema,
  })
  .meta({ id: 'Transaction', description: 'Spec 2.2' });

export type TransactionJson = z.output<typeof transactionSchema>;

/** The dashboard's transaction: the API's shape with any type, the pool's operations too. */
export type DashboardTransactionJson = Omit<TransactionJson, 'type'> & { type: TransactionType };

/** The dashboard's release of a held payment (docs/dashboard.md): forward it, or refund it to an address (releaseHeldByHash, lib/payments/operator.ts). */
export const releaseHeldSchema = z.discriminatedUnion('action', [z.object({ action: z.literal('FORWARD') }), z.object({ action: z.literal('REFUND'), address: z.string().min(1) })]);
