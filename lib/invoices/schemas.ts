import { z } from 'zod';
import { usdAmountSchema } from '@/lib/money/schemas';
import { failedTargetJsonSchema, payoutTargetJsonSchema } from './storedTargets';
import { CURRENCIES, currencySchema, type Currency } from '@/lib/money/tokens';
import { pageQuerySchema } from '@/lib/schemas/page';
import { httpUrlSchema } from '@/lib/schemas/url';
import { dateSchema, orderingSchema, upperCase } from '@/lib/schemas/listQuery';
import { documentAs } from '@/lib/schemas/openapi';
import { timestampSchema } from '@/lib/schemas/timestamp';
import { MAX_DESCRIPTION, MAX_EXPIRY_MINUTES, MAX_ORDER_ID } from './limits';
import { INVOICE_STATUSES, normalizeStatus } from './states';

const MAX_INVOICE_PAGE = 300;

/** `["TRX","USDT"]`, or the comma form `"TRX,USDT"` some clients send; duplicates collapse. */
const currenciesSchema = documentAs(
  z
    .preprocess(
      (v) => (typeof v === 'string' ? v.split(',') : v),
      z
        .array(z.preprocess(upperCase, z.enum(CURRENCIES, { error: 'Must be "TRX" or "USDT".' })))
        .min(1, 'At least one currency is required.')
        // Two tokens exist; a few repeats are tolerated (they collapse), a flood is not read element by element.
        .max(10, 'Ensure this field has no more than 10 elements.'),
    )
    .transform((list) => [...new Set(list)] as Currency[]),
  {
    anyOf: [
      { type: 'array', items: { type: 'string', enum: CURRENCIES }, minItems: 1, maxItems: 10 },
      { type: 'string', pattern: '^(?:[Tt][Rr][Xx]|[Uu][Ss][Dd][Tt])(?:,(?:[Tt][Rr][Xx]|[Uu][Ss][Dd][Tt]))*$', description: 'The comma form, e.g. "TRX,USDT"' },
    ],
    description: 'Accepted tokens, case-insensitive; duplicates collapse.',
    examples: [['TRX', 'USDT']],
  },
);

const optionalText = (max: number) =>
  z.string().max(max, `Ensure this field has no more than ${max} characters.`).nullish();

// Normalised before it is stored; tricks like `http:/evil.com` are refused (lib/schemas/url.ts).
const httpUrl = httpUrlSchema.nullish();

const integerLike = z
  .union([z.number(), z.string().regex(/^\d+$/)], { error: 'A valid integer is required.' })
  .transform(Number)
  .pipe(z.number().int('A valid integer is required.'));

const createInvoiceBody = z.object({
  type: z.preprocess(upperCase, z.enum(['SINGLE', 'MULTIPLE'], { error: 'Must be "SINGLE" or "MULTIPLE".' })).describe('SINGLE (temporary address) or MULTIPLE (static address); case-insensitive'),
  // Validated by the transform below, for SINGLE only (spec 4.1).
  amount: z
    .unknown()
    .meta({ anyOf: [{ type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000 }, { type: 'string', pattern: '^\\d+(\\.\\d{1,6})?$' }], description: 'USD, > 0, at most 6 decimals, at most 1,000,000,000; a number or a decimal string. Required for SINGLE, ignored for MULTIPLE.' })
    .optional(),
  currencies: currenciesSchema,
  expiry_minutes: z
    .unknown()
    .meta({ type: ['integer', 'string'], minimum: 1, maximum: MAX_EXPIRY_MINUTES, pattern: '^\\d+$', description: `SINGLE only: 1 to ${MAX_EXPIRY_MINUTES} (an integer or digit string); default DEFAULT_EXPIRY_MINUTES (60). Ignored for MULTIPLE.` })
    .optional(),
  // The spec spells it client_comission; its samples spell client_commission. Both are read.
  client_comission: z.boolean({ error: 'Must be a boolean.' }).nullish().describe('SINGLE only: true adds the forwarding fee to what the customer pays. Either spelling; both must agree.'),
  client_commission: z.boolean({ error: 'Must be a boolean.' }).nullish().describe('The samples\' spelling of client_comission'),
  order_id: optionalText(MAX_ORDER_ID),
  webhook_url: httpUrl.describe('Absolute http(s) URL notified on status changes'),
  redirect_url: z
    .unknown()
    .meta({ type: ['string', 'null'], maxLength: 2048, description: 'SINGLE only: absolute http(s) URL the customer is sent to after paying. Ignored for MULTIPLE.' })
    .optional(),
  description: optionalText(MAX_DESCRIPTION),
});

/**
 * The create-invoice body. For MULTIPLE, `amount`, `redirect_url` and
 * `expiry_minutes` are ignored (spec 4.1), so they are not even validated.
 */
export const createInvoiceSchema = createInvoiceBody.transform((body, ctx) => {
  const single = body.type === 'SINGLE';
  const field = <T>(name: string, schema: z.ZodType<T>, value: unknown): T | undefined => {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', path: [name, ...issue.path], message: issue.message });
    return undefined;
  };
  let amountMicros: bigint | undefined;
  let expiryMinutes: number | undefined;
  let redirectUrl: string | null | undefined;
  if (single) {
    redirectUrl = field('redirect_url', httpUrl, body.redirect_url);
    if (body.amount === undefined || body.amount === null) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'This field is required.' });
    else amountMicros = field('amount', usdAmountSchema, body.amount);
    if (body.expiry_minutes !== undefined && body.expiry_minutes !== null) {
      expiryMinutes = field('expiry_minutes', integerLike.pipe(z.number().min(1, 'Ensure this value is at least 1.').max(MAX_EXPIRY_MINUTES, `Ensure this value is at most ${MAX_EXPIRY_MINUTES}.`)), body.expiry_minutes);
    }
  }
  const a = body.client_comission;
  const b = body.client_commission;
  if (a != null && b != null && a !== b) {
    ctx.addIssue({ code: 'custom', path: ['client_comission'], message: 'client_comission and client_commission disagree.' });
  }
  return {
    type: body.type,
    amountMicros: amountMicros ?? 0n,
    currencies: body.currencies,
    expiryMinutes,
    clientCommission: single && (a ?? b ?? false),
    orderId: body.order_id ?? null,
    webhookUrl: body.webhook_url ?? null,
    redirectUrl: redirectUrl ?? null,
    description: body.description ?? null,
  };
});

createInvoiceSchema.meta({ id: 'CreateInvoiceRequest', description: 'Spec 4.1. Unknown fields are ignored.' });

export type CreateInvoiceInput = z.output<typeof createInvoiceSchema>;


export const INVOICE_ORDERING = ['created_at', 'amount', 'status'] as const;

export const listInvoicesQuerySchema = pageQuerySchema(MAX_INVOICE_PAGE).extend({
  type: z.preprocess(upperCase, z.enum(['SINGLE', 'MULTIPLE', 'MULTIPLE_TRANSFER'], { error: 'Must be SINGLE, MULTIPLE or MULTIPLE_TRANSFER.' })).optional(),
  status: z
    .preprocess((v) => (typeof v === 'string' ? normalizeStatus(v) : v), z.enum(INVOICE_STATUSES, { error: 'Not a valid invoice status.' }))
    .optional()
    .describe('An invoice status; CANCELLED is read as CANCELED'),
  currency: documentAs(currenciesSchema.optional(), { type: 'string', enum: ['TRX', 'USDT', 'TRX,USDT'], description: 'TRX,USDT: invoices accepting both; TRX: accepting TRX (alone or with USDT)' }),
  date_from: dateSchema('date_from').optional(),
  date_to: dateSchema('date_to').optional(),
  ordering: orderingSchema(INVOICE_ORDERING).default('-created_at'),
  search: z.string().trim().max(200).optional().describe('Substring of address or description, start of order_id (an addition to the spec), exact id, a status (either spelling) or a token, case-insensitive'),
});

export type ListInvoicesQuery = z.output<typeof listInvoicesQuerySchema>;

// ---- Responses (spec 2.1). The serializer is typed by these schemas and the
// OpenAPI document (lib/openapi) is generated from them, so neither can drift.

/** Token (`TRX`, `USDT`) → amount, a key for each accepted token. */
const perCurrencySchema = z.record(z.string(), z.number()).describe('Token (TRX, USDT) to amount, a key per accepted token');

export const invoiceSchema = z
  .object({
    id: z.int(),
    status: z.enum(INVOICE_STATUSES),
    type: z.enum(['SINGLE', 'MULTIPLE', 'MULTIPLE_TRANSFER']),
    paymentURL: z.string().describe('{PAYMENT_PAGE_BASE}/payment/<id>'),
    amount: z.number().describe('USD; 0 for MULTIPLE; for a mass payout the USD value of what is sent'),
    currencies: z.array(z.enum(CURRENCIES)),
    currency: z.enum(CURRENCIES).optional().describe('MULTIPLE_TRANSFER only: the payout token (also the one entry of `currencies`)'),
    currencies_amounts: perCurrencySchema.describe('Amount to pay in each accepted token; for a mass payout the top-up'),
    transfer_amounts: z.object({ input: perCurrencySchema, output: perCurrencySchema }).describe('input: received; output: forwarded (or, for a mass payout, sent)'),
    cost: z.number().nullable().describe('Service fee kept, in the token paid; null until a payment is processed'),
    network_cost_trx: z.number().describe('Addition to the spec: what the network cost for the invoice\'s sends, in TRX (burned for energy, bandwidth and activations, and rented energy\'s price), whoever paid it'),
    order_id: z.string().nullable(),
    address: z.string(),
    client_comission: z.boolean().describe('Spelling of the spec tables; always equal to client_commission'),
    client_commission: z.boolean().describe('Spelling of the spec samples; always equal to client_comission'),
    webhook_url: z.string().nullable(),
    redirect_url: z.string().nullable(),
    description: z.string().nullable(),
    merchant_contact: z.string(),
    target_wallets: z
      .union([z.array(payoutTargetJsonSchema), z.object({}).strict()])
      .describe('The submitted list on MULTIPLE_TRANSFER, {} otherwise'),
    failed_targets: z.array(failedTargetJsonSchema).optional().describe('MULTIPLE_TRANSFER only: targets that could not be paid (status ERROR)'),
    expired_at: timestampSchema,
    created_at: timestampSchema,
  })
  .meta({ id: 'Invoice', description: 'An invoice; also the invoice webhook\'s payload' });

export type InvoiceJson = z.output<typeof invoiceSchema>;

/**
 * The public payment page's routes (`/payment/<id>/status`, `/devnet-pay`). The id stays text: an
 * unknown or malformed one is the page's own 404 (loadPublicInvoice), not a 400.
 */
export const paymentPageParamsSchema = z.object({ id: z.string() });

/** The status poll's query: `k`, the paymentURL's key that opens the full view; any other value only the limited one (docs/payment-page.md). */
export const paymentStatusQuerySchema = z.object({ k: z.string().optional() });

/**
 * The devnet button's body, `{"currency": "TRX"}`. Anything else reads as null, not a 400 here:
 * the use case answers with the tokens this invoice takes, and only after it has checked that the
 * chain is the devnet and the invoice exists (payInvoiceFromDevnet).
 */
export const devnetPayBodySchema = z.object({ currency: currencySchema }).nullable().catch(null);
