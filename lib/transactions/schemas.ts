import { z } from 'zod';
import { TransactionType } from '@/lib/generated/prisma/enums';
import { dateSchema, orderingSchema, upperCase } from '@/lib/schemas/listQuery';
import { pageQuerySchema } from '@/lib/schemas/page';
import { currencySchema } from '@/lib/money/tokens';
import { timestampSchema } from '@/lib/schemas/timestamp';

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

export function isApiTransactionType(type: TransactionType | 'REFUND'): type is ApiTransactionType {
  return (API_TRANSACTION_TYPES as readonly string[]).includes(type);
}

/** Who a transaction list is for: the merchant API (spec types only) or the dashboard (every type, pool operations too). */
export type TransactionAudience = 'api' | 'dashboard';

const TYPE_ERROR = 'Must be PAYMENT, TRANSFER, TOPUP or ACTIVATION.';

const transactionsQuerySchema = <T extends readonly [string, ...string[]]>(types: T) =>
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

/**
 * The dashboard's own types: every TransactionType (the pool's operations too), and REFUND, a
 * refund's send (docs/refunds.md), which the API answers as the TRANSFER it is (spec 2.2).
 */
export const DASHBOARD_TRANSACTION_TYPES = [...(Object.values(TransactionType) as TransactionType[]), 'REFUND'] as unknown as [TransactionType | 'REFUND', ...(TransactionType | 'REFUND')[]];
export type DashboardTransactionType = TransactionType | 'REFUND';

/** The dashboard's transaction list and CSV export: `type` may also name a pool operation, or REFUND, which the dashboard shows. */
export const dashboardTransactionsQuerySchema = transactionsQuerySchema(DASHBOARD_TRANSACTION_TYPES);

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
    type: z.enum(API_TRANSACTION_TYPES).describe('What the transaction was for; the energy pool\'s own operations are never listed'),
    from_address: z.string(),
    to_address: z.string(),
    amount: z.number().describe('In `currency`'),
    currency: currencySchema,
    aml_check: amlCheckSchema.nullable(),
    held: z
      .object({ reason: z.string().describe('Why the service keeps the funds at the address instead of forwarding them') })
      .nullable()
      .describe('An addition to the transaction: set while the payment is held; its merchant releases it from the dashboard or with POST /held_payment/{trn_hash}/release'),
    event_id: z.string().nullable().describe('UUID shared by an incoming payment and its forwarding'),
    created_at: timestampSchema,
  })
  .meta({ id: 'Transaction', description: 'A transaction at one of the merchant\'s addresses' });

export type TransactionJson = z.output<typeof transactionSchema>;

/** The dashboard's transaction: the API's shape with any type, the pool's operations and a refund's send too. */
export type DashboardTransactionJson = Omit<TransactionJson, 'type'> & { type: DashboardTransactionType };

/**
 * A release of a held payment (docs/dashboard.md, docs/api.md "Held payments"): forward it, or
 * return it to an address (releaseHeldByHash, lib/payments/operator.ts). The dashboard and
 * `POST /v1/api/held_payment/{trn_hash}/release` read it; `action` in either case.
 */
export const releaseHeldSchema = z
  .object({
    action: z.preprocess(upperCase, z.enum(['FORWARD', 'REFUND'], { error: 'action must be FORWARD or REFUND.' })).describe('FORWARD: to the merchant\'s target wallet, as any payment; REFUND: back to `address`. Either case.'),
    address: z.string().trim().min(1, 'address is required to return funds.').optional().describe('Where a REFUND goes (T...); not read for a FORWARD'),
  })
  .transform((r, ctx) => {
    if (r.action === 'FORWARD') return { action: 'FORWARD' as const };
    if (r.address === undefined) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: 'address is required to return funds.' });
      return z.NEVER;
    }
    return { action: 'REFUND' as const, address: r.address };
  })
  .meta({ id: 'ReleaseRequest' });

/** What became of held funds a merchant released (lib/transactions/releases.ts), on the dashboard's rows and the API's held payments. */
export const releaseSchema = z
  .object({
    action: z.enum(['FORWARD', 'REFUND']),
    to_address: z.string().nullable().describe('Where the funds go: the address named for a return; for a forward the wallet it was sent to, null before it is sent'),
    state: z.enum(['IN_PROGRESS', 'FORWARDED', 'RETURNED', 'FAILED']).describe('What it came to: the payment\'s own outcome (a forward released unscreened may be returned by the AML rules)'),
    sent: z
      .object({ trn_hash: z.string(), explorer_url: z.string().nullable().describe('On a block explorer; null on the devnet') })
      .nullable()
      .describe('The transfer that moved them, once final'),
  })
  .meta({ id: 'Release' });

export type ReleaseJson = z.output<typeof releaseSchema>;

/** A held payment through the API (docs/api.md, "Held payments"): the Transaction object, with what became of it once released. */
export const heldPaymentSchema = transactionSchema
  .extend({
    held_reason: z.enum(['canceled', 'token', 'dust', 'other']).nullable().describe('Why it is held, as a code (as the payment.held webhook has it): paid after the invoice was canceled, a token the invoice does not accept, too small to forward, anything else (`held.reason` says more); null once released'),
    release: releaseSchema.nullable().describe('Null while the payment is held; once released, what became of it'),
  })
  .meta({ id: 'HeldPayment', description: 'A payment the service keeps at its address (`held` set) or kept until the merchant released it (`release` set)' });

export type HeldPaymentJson = z.output<typeof heldPaymentSchema>;

/** GET /v1/api/held_payment/list: the payments held now, newest first. */
export const listHeldPaymentsQuerySchema = pageQuerySchema(MAX_TRANSACTION_PAGE).extend({
  invoice_id: z.string().regex(/^\d{1,9}$/, 'invoice_id must be an invoice id.').transform(Number).optional(),
  currency: z.preprocess(upperCase, currencySchema).optional(),
});

export type ListHeldPaymentsQuery = z.output<typeof listHeldPaymentsQuerySchema>;
