import { z } from 'zod';
import { DecimalFormatError, parseScaled } from '@/lib/money/decimal';
import { CURRENCIES, USD_DECIMALS, type Currency } from '@/lib/money/tokens';
import { pageQuerySchema } from '@/lib/http/pagination';
import { httpUrlSchema } from '@/lib/http/url';
import { dateSchema, orderingSchema, upperCase } from '@/lib/http/listQuery';
import { INVOICE_STATUSES, normalizeStatus } from './states';

export const MAX_ORDER_ID = 256;
export const MAX_DESCRIPTION = 2000;
export const MAX_EXPIRY_MINUTES = 10_080; // one week
export const MAX_USD_MICROS = 1_000_000_000n * 10n ** BigInt(USD_DECIMALS); // one billion USD
export const MAX_INVOICE_PAGE = 300;

/** A positive USD amount, exact to micro-dollars, as a JSON number or a decimal string. */
export const usdAmountSchema = z.union([z.number(), z.string()], { error: 'A valid number is required.' }).transform((value, ctx) => {
  try {
    const micros = parseScaled(value, USD_DECIMALS);
    if (micros <= 0n) ctx.addIssue({ code: 'custom', message: 'Ensure this value is greater than 0.' });
    else if (micros > MAX_USD_MICROS) ctx.addIssue({ code: 'custom', message: 'Ensure this value is at most 1000000000.' });
    return micros;
  } catch (err) {
    const why = err instanceof DecimalFormatError ? err.message : 'must be a number';
    ctx.addIssue({ code: 'custom', message: `A valid number is required: it ${why}.` });
    return z.NEVER;
  }
});

/** `["TRX","USDT"]`, or the comma form `"TRX,USDT"` some clients send; duplicates collapse. */
export const currenciesSchema = z
  .preprocess(
    (v) => (typeof v === 'string' ? v.split(',') : v),
    z
      .array(z.preprocess(upperCase, z.enum(CURRENCIES, { error: 'Must be "TRX" or "USDT".' })))
      .min(1, 'At least one currency is required.')
      // Two tokens exist; a few repeats are tolerated (they collapse), a flood is not read element by element.
      .max(10, 'Ensure this field has no more than 10 elements.'),
  )
  .transform((list) => [...new Set(list)] as Currency[]);

const optionalText = (max: number) =>
  z.string().max(max, `Ensure this field has no more than ${max} characters.`).nullish();

// Normalised before it is stored; tricks like `http:/evil.com` are refused (lib/http/url.ts).
const httpUrl = httpUrlSchema.nullish();

const integerLike = z
  .union([z.number(), z.string().regex(/^\d+$/)], { error: 'A valid integer is required.' })
  .transform(Number)
  .pipe(z.number().int('A valid integer is required.'));

const createInvoiceBody = z.object({
  type: z.preprocess(upperCase, z.enum(['SINGLE', 'MULTIPLE'], { error: 'Must be "SINGLE" or "MULTIPLE".' })),
  amount: z.unknown().optional(),
  currencies: currenciesSchema,
  expiry_minutes: z.unknown().optional(),
  // The spec spells it client_comission; its samples spell client_commission. Both are read.
  client_comission: z.boolean({ error: 'Must be a boolean.' }).nullish(),
  client_commission: z.boolean({ error: 'Must be a boolean.' }).nullish(),
  order_id: optionalText(MAX_ORDER_ID),
  webhook_url: httpUrl,
  redirect_url: z.unknown().optional(),
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

export type CreateInvoiceInput = z.output<typeof createInvoiceSchema>;


export const INVOICE_ORDERING = ['created_at', 'amount', 'status'] as const;

export const listInvoicesQuerySchema = pageQuerySchema(MAX_INVOICE_PAGE).extend({
  type: z.preprocess(upperCase, z.enum(['SINGLE', 'MULTIPLE', 'MULTIPLE_TRANSFER'], { error: 'Must be SINGLE, MULTIPLE or MULTIPLE_TRANSFER.' })).optional(),
  status: z
    .preprocess((v) => (typeof v === 'string' ? normalizeStatus(v) : v), z.enum(INVOICE_STATUSES, { error: 'Not a valid invoice status.' }))
    .optional(),
  currency: currenciesSchema.optional(),
  date_from: dateSchema('date_from').optional(),
  date_to: dateSchema('date_to').optional(),
  ordering: orderingSchema(INVOICE_ORDERING).default('-created_at'),
  search: z.string().trim().max(200).optional(),
});

export type ListInvoicesQuery = z.output<typeof listInvoicesQuerySchema>;
