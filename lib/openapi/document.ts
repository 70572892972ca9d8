import { z } from 'zod';
import { errorBodySchema } from '@/lib/http/errors';
import { jsonSchemaOptions } from '@/lib/schemas/openapi';
import { pageEnvelopeSchema } from '@/lib/http/pagination';
import { createInvoiceSchema, invoiceSchema, listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { merchantAccountSchema } from '@/lib/merchants/schemas';
import { payoutEstimateSchema, payoutRequestSchema } from '@/lib/payouts/schemas';
import { rateSchema } from '@/lib/rates/schemas';
import { amlCheckSchema, heldPaymentSchema, listHeldPaymentsQuerySchema, listTransactionsQuerySchema, releaseHeldSchema, releaseSchema, transactionSchema } from '@/lib/transactions/schemas';
import { derived } from '@/lib/singletons';
import { createRefundSchema, refundSchema } from '@/lib/refunds/schemas';
import { REFUND_EVENTS } from '@/lib/webhooks/outbox';

export type Json = Record<string, unknown>;

/** Page envelopes get their own component names (they are not in the spec's resource list). */
const invoicePageSchema = pageEnvelopeSchema(invoiceSchema).meta({ id: 'InvoicePage', description: 'GET /payment/list' });
const transactionPageSchema = pageEnvelopeSchema(transactionSchema).meta({ id: 'TransactionPage', description: 'GET /transaction/list (the spec shows no envelope; the invoice list\'s is used)' });
const heldPaymentPageSchema = pageEnvelopeSchema(heldPaymentSchema).meta({ id: 'HeldPaymentPage', description: 'GET /held_payment/list' });

/** The opt-in `payment.held` webhook's body (lib/webhooks/outbox.ts, paymentHeldJson): the Transaction object led by two fields. */
const paymentHeldEventSchema = transactionSchema
  .extend({
    event: z.literal('payment.held'),
    held_reason: z.enum(['canceled', 'token', 'dust', 'other']).describe('Why, as a code: paid after the invoice was canceled, a token the invoice does not accept, too small to forward, anything else'),
  })
  .meta({ id: 'PaymentHeldEvent', description: 'The opt-in payment.held webhook: a payment kept at its address for the merchant to forward or return' });

/** The opt-in refund webhooks' body (lib/refunds/events.ts): the Refund object led by `event`. */
const refundEventSchema = refundSchema
  .extend({ event: z.enum(REFUND_EVENTS).describe('refund.created; refund.claimed (the customer entered the address: top it up); refund.sent; refund.failed') })
  .meta({ id: 'RefundEvent', description: 'The opt-in refund webhooks: refund.created, refund.claimed, refund.sent and refund.failed' });

/** Components derived from the zod schemas, requests as they are read, responses as they are written. */
const REQUESTS = { CreateInvoiceRequest: createInvoiceSchema, PayoutRequest: payoutRequestSchema, ReleaseRequest: releaseHeldSchema, RefundRequest: createRefundSchema };
const RESPONSES = {
  Invoice: invoiceSchema,
  InvoicePage: invoicePageSchema,
  Transaction: transactionSchema,
  AmlCheck: amlCheckSchema,
  TransactionPage: transactionPageSchema,
  Merchant: merchantAccountSchema,
  Rate: rateSchema,
  PayoutEstimate: payoutEstimateSchema,
  PaymentHeldEvent: paymentHeldEventSchema,
  HeldPayment: heldPaymentSchema,
  HeldPaymentPage: heldPaymentPageSchema,
  Release: releaseSchema,
  Refund: refundSchema,
  RefundEvent: refundEventSchema,
  Error: errorBodySchema,
};

function components(io: 'input' | 'output', wanted: Record<string, z.ZodType>): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(wanted)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { ...jsonSchemaOptions(io), uri: (id) => `#/components/schemas/${id}` });
  const out: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    // Every schema with a meta id must be listed above, or zod parks it in `__shared` where no $ref reaches.
    if (!(id in wanted)) throw new Error(`OpenAPI: schema ${id} is not a listed component`);
    const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
    out[id] = rest;
  }
  return out;
}

/** Query parameters from the zod object the route parses the query with. */
function queryParameters(schema: z.ZodObject): Json[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { $schema: _dialect, description, ...fieldSchema } = z.toJSONSchema(field as z.ZodType, jsonSchemaOptions('input')) as Json;
    return { name, in: 'query', required: false, ...(description !== undefined && { description }), schema: fieldSchema };
  });
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: Json, description: string) => ({ description, content: { 'application/json': { schema } } });
const error = (description: string) => json(ref('Error'), description);

const FORBIDDEN_TEXT = '`Authentication credentials were not provided.` (no Authorization header), `Invalid API key` (unknown or revoked key), `Invalid API key: IP address not allowed: ...` with the same words in `reason` (a valid key from an IP address not whitelisted)';
/** The 403 of an operation that needs `scope` of its key (issue 40, docs/api.md "Key scopes"; lib/http/api/routes.ts). */
const forbidden = (scope: string, when = '') => error(`${FORBIDDEN_TEXT}, or \`This API key lacks the scope ${scope}.\` (a key without the scope this operation needs${when})`);
const INVALID = error('Invalid data: `detail` names the first offending field (`<field>: <message>`), `errors` maps every one; or `JSON parse error - <parser message>`');
const INVOICE_404 = error('`No Invoice matches the given query.` (unknown, malformed or another merchant\'s id)');
const HELD_404 = error('`No held payment with this hash.` (an unknown hash, another merchant\'s, or a payment that was never held)');
const RELEASE_404 = error('`No held payment with this hash.` (no payment of this merchant has it)');
const REFUND_404 = error('`No Refund matches the given query.` (unknown, malformed or another merchant\'s id)');
const UNAVAILABLE = error('A rate, the node or the USDT simulation is unavailable; `detail` says which. Try again later.');

const pathParam = (name: string, schema: Json, description: string) => ({ name, in: 'path', required: true, description, schema });

/** Optional on the creating operations (issue 26, docs/api.md "Idempotent creation"): an addition to the spec. */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Optional (not in the spec). A unique key per request, e.g. a UUID: a repeat of the same request with the same key within 24 hours gets the first answer again (same status and body, header `Idempotent-Replayed: true`) and creates (or releases) nothing more, an estimate its first figures; a duplicate sent while the first still runs waits for its answer. A refused request (4xx) leaves the key free. Without the header every request runs.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const IDEMPOTENCY_RESPONSES = {
  409: error('`Idempotency-Key`: the first request with this key is still running (retry for its answer), or was interrupted before it answered'),
  422: error('`Idempotency-Key` already used with a different request (another body or path) in the last 24 hours'),
};

function paths(): Json {
  const invoiceId = pathParam('id', { type: 'integer', minimum: 0 }, 'Invoice id');
  return {
    '/payment/create': {
      post: {
        operationId: 'createInvoice',
        summary: 'Create an invoice',
        description:
          'A body with `type` creates an invoice. The same path also answers a mass payout estimate, as the specification names it there too: a body with no `type` and a `target_wallets` or `currency` is answered as `POST /payment/multiple_transfer/calculate` (use that path for estimates). A trailing slash is accepted on every path.',
        tags: ['Invoices'],
        parameters: [IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: { anyOf: [ref('CreateInvoiceRequest'), ref('PayoutRequest')] } } } },
        responses: {
          200: json({ anyOf: [ref('Invoice'), ref('PayoutEstimate')] }, 'The new invoice (or, for an estimate body, the estimate)'),
          400: error("Invalid data (see below), a JSON parse error, or `User's target wallet address is not set`"),
          403: forbidden('<scope>', '; the scope is `invoices:write` to create an invoice, `read` for a payout estimate'),
          ...IDEMPOTENCY_RESPONSES,
          503: UNAVAILABLE,
        },
      },
    },
    '/payment/list': {
      get: {
        operationId: 'listInvoices',
        summary: 'List invoices',
        tags: ['Invoices'],
        parameters: queryParameters(listInvoicesQuerySchema),
        responses: { 200: json(ref('InvoicePage'), 'A page of invoices'), 400: error('An invalid filter, named in `detail`'), 403: forbidden('read') },
      },
    },
    '/payment/{id}/cancel': {
      delete: {
        operationId: 'cancelInvoice',
        summary: 'Cancel an invoice',
        description: 'Only an ACTIVE invoice can be canceled; a mass payout only until its top-up has arrived.',
        tags: ['Invoices'],
        parameters: [invoiceId],
        responses: { 200: json(ref('Invoice'), 'The invoice, now CANCELED'), 400: error('`Invoice cannot be canceled`'), 403: forbidden('invoices:write'), 404: INVOICE_404 },
      },
    },
    '/payment/get/{id}': {
      get: {
        operationId: 'getInvoice',
        summary: 'Get one invoice',
        tags: ['Invoices'],
        parameters: [invoiceId],
        responses: { 200: json(ref('Invoice'), 'The invoice'), 403: forbidden('read'), 404: INVOICE_404 },
      },
    },
    '/payment/multiple_transfer/create': {
      post: {
        operationId: 'createPayout',
        summary: 'Create a mass payout',
        tags: ['Mass payouts'],
        parameters: [IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: ref('PayoutRequest') } } },
        responses: { 200: json(ref('Invoice'), 'A MULTIPLE_TRANSFER invoice; send `currencies_amounts` to `address`'), 400: INVALID, 403: forbidden('payouts:write'), ...IDEMPOTENCY_RESPONSES, 503: UNAVAILABLE },
      },
    },
    '/payment/multiple_transfer/calculate': {
      post: {
        operationId: 'estimatePayout',
        summary: 'Calculate the cost of a mass payout',
        tags: ['Mass payouts'],
        parameters: [IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: ref('PayoutRequest') } } },
        responses: { 200: json(ref('PayoutEstimate'), 'The estimate'), 400: INVALID, 403: forbidden('read'), ...IDEMPOTENCY_RESPONSES, 503: UNAVAILABLE },
      },
    },
    '/transaction/list': {
      get: {
        operationId: 'listTransactions',
        summary: 'List transactions',
        description: 'Never 404: a filter that matches nothing gives `count: 0`.',
        tags: ['Transactions'],
        parameters: queryParameters(listTransactionsQuerySchema),
        responses: { 200: json(ref('TransactionPage'), 'A page of transactions'), 400: error('An invalid filter, named in `detail`'), 403: forbidden('read') },
      },
    },
    '/transaction/{trn_hash}': {
      get: {
        operationId: 'getTransaction',
        summary: 'Get one transaction',
        tags: ['Transactions'],
        parameters: [pathParam('trn_hash', { type: 'string' }, 'Transaction hash')],
        responses: { 200: json(ref('Transaction'), 'The transaction, with the full aml_check when a check ran'), 403: forbidden('read'), 404: error('`Address not found.` (an unknown hash, another merchant\'s, or one of the energy pool\'s own operations, which are no merchant transactions)') },
      },
    },
    '/payment/{id}/refund': {
      post: {
        operationId: 'createRefund',
        summary: 'Refund a sale, in full or in part',
        description:
          'Not in the specification. The merchant funds a refund (the service forwarded the sale to them): once its address is known, a one-target mass payout with no service fee is created (`payout`), and the refund goes out once `topup_amount` has arrived at `topup_address`. With `address`, the merchant names it; without, the answer\'s `claim_url` is a page where the customer enters it. At most what the invoice received in `currency` (money the service holds for it included), less its other refunds still standing. Held money pays for the refund first (`funded_from_held`) when the key also has `payouts:write`; with `refunds:write` alone the merchant tops up the whole.',
        tags: ['Refunds'],
        parameters: [invoiceId, IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: ref('RefundRequest') } } },
        responses: {
          200: json(ref('Refund'), 'The refund: WAITING_ADDRESS (a claim link) or WAITING_FUNDS'),
          400: error('Invalid data (`currency`, `amount`, `address`, `reason` named: more than is left to refund, nothing received in the token, a smart contract or frozen USDT address), or a mass payout'),
          403: forbidden('refunds:write'),
          404: INVOICE_404,
          ...IDEMPOTENCY_RESPONSES,
          503: UNAVAILABLE,
        },
      },
    },
    '/payment/{id}/refunds': {
      get: {
        operationId: 'listRefunds',
        summary: 'List an invoice\'s refunds',
        description: 'Not in the specification. Oldest first; all of them, not paged (an invoice has few).',
        tags: ['Refunds'],
        parameters: [invoiceId],
        responses: { 200: json({ type: 'array', items: ref('Refund') }, 'The refunds'), 403: forbidden('read'), 404: INVOICE_404 },
      },
    },
    '/refund/{id}': {
      get: {
        operationId: 'getRefund',
        summary: 'Get one refund',
        tags: ['Refunds'],
        parameters: [pathParam('id', { type: 'integer', minimum: 0 }, 'Refund id')],
        responses: { 200: json(ref('Refund'), 'The refund'), 403: forbidden('read'), 404: REFUND_404 },
      },
    },
    '/refund/{id}/cancel': {
      delete: {
        operationId: 'cancelRefund',
        summary: 'Cancel a refund',
        description: 'While it waits for its address, or for its top-up (its payout is canceled with it, until the top-up has arrived). Its amount can then be refunded again.',
        tags: ['Refunds'],
        parameters: [pathParam('id', { type: 'integer', minimum: 0 }, 'Refund id')],
        responses: { 200: json(ref('Refund'), 'The refund, now CANCELED'), 400: error('`Refund cannot be canceled: it is <status>.`'), 403: forbidden('refunds:write'), 404: REFUND_404 },
      },
    },
    '/held_payment/list': {
      get: {
        operationId: 'listHeldPayments',
        summary: 'List held payments',
        description:
          'Not in the specification. The payments the service keeps at their address instead of forwarding them (`held.reason` says why: paid after the invoice was canceled, a token the invoice does not take, too small to forward, or a forward that failed), newest first. Release one with `POST /held_payment/{trn_hash}/release`.',
        tags: ['Held payments'],
        parameters: queryParameters(listHeldPaymentsQuerySchema),
        responses: { 200: json(ref('HeldPaymentPage'), 'A page of held payments'), 400: error('An invalid filter, named in `detail`'), 403: forbidden('read') },
      },
    },
    '/held_payment/{trn_hash}': {
      get: {
        operationId: 'getHeldPayment',
        summary: 'Get one held or released payment',
        description: 'Not in the specification. A payment held now (`held` set, `release` null) or released earlier (`release` says what became of it, `sent` the transfer once final).',
        tags: ['Held payments'],
        parameters: [pathParam('trn_hash', { type: 'string' }, 'The payment\'s transaction hash')],
        responses: { 200: json(ref('HeldPayment'), 'The payment'), 403: forbidden('read'), 404: HELD_404 },
      },
    },
    '/held_payment/{trn_hash}/release': {
      post: {
        operationId: 'releaseHeldPayment',
        summary: 'Release a held payment: forward it, or return it to an address',
        description:
          'Not in the specification; the dashboard\'s release, with its rules. FORWARD sends the funds to the merchant\'s target wallet as any payment (screened first when AML is on and they never were); REFUND returns them to `address`, its network cost taken out of them. The address must be a Tron account, not a contract, and for USDT not frozen by Tether.',
        tags: ['Held payments'],
        parameters: [pathParam('trn_hash', { type: 'string' }, 'The held payment\'s transaction hash'), IDEMPOTENCY_KEY],
        requestBody: { required: true, content: { 'application/json': { schema: ref('ReleaseRequest') } } },
        responses: {
          200: json(ref('HeldPayment'), 'The payment, released: `release.state` IN_PROGRESS until the worker has moved it'),
          400: error('Invalid data (`action`, `address` named), `Only held funds can be released.` (a payment not held now: never held, or released already), or a send of the payment still in flight'),
          403: forbidden('payouts:write'),
          404: RELEASE_404,
          ...IDEMPOTENCY_RESPONSES,
          503: UNAVAILABLE,
        },
      },
    },
    '/merchant': {
      get: {
        operationId: 'getMerchant',
        summary: 'Merchant account information',
        tags: ['Account'],
        responses: { 200: json(ref('Merchant'), 'The calling merchant'), 403: forbidden('read') },
      },
    },
    '/rates': {
      get: {
        operationId: 'getRate',
        summary: 'Current conversion rate',
        tags: ['Account'],
        parameters: [{ name: 'currency', in: 'query', required: true, description: 'TRX or USDT (case-insensitive)', schema: { type: 'string', enum: ['TRX', 'USDT'] } }],
        responses: {
          200: json(ref('Rate'), 'USD per token, and the USDT top-up fee'),
          400: error('`currency: This field is required.`'),
          403: forbidden('read'),
          404: error('`Currency not found`'),
          503: error('`Exchange rate for <token> is unavailable (...); try again later`'),
        },
      },
    },
  };
}

/** The headers every webhook delivery carries (docs/webhooks.md, "Headers"). */
const WEBHOOK_HEADERS = [
  ['webhook-id', 'Standard Webhooks: the event; the same on every retry and resend, so a receiver can de-duplicate'],
  ['webhook-timestamp', 'Standard Webhooks: unix seconds of this attempt'],
  ['webhook-signature', 'Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`'],
  ['X-Webhook-Signature', '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`'],
  ['Idempotency-Key', 'The event, as `webhook-id` on a first delivery'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

const WEBHOOK_ANSWER = {
  '2XX': { description: 'Accepted. Any other answer, or none within the timeout, is a failed delivery: retried with backoff when the merchant turned retries on, and shown on the dashboard' },
};

/**
 * What the service POSTs to a merchant's webhook URL (OpenAPI 3.1 `webhooks`; issue 38): the spec's
 * invoice webhook, and the `payment.held` event a merchant opts into. Signed as docs/webhooks.md says.
 */
function webhooks(): Json {
  return {
    invoice: {
      post: {
        operationId: 'invoiceWebhook',
        summary: 'An invoice changed status, or a static address received a payment',
        description:
          'Sent to the invoice\'s `webhook_url`, or else the merchant\'s default, when an invoice becomes COMPLETED, OVERPAID, UNDERPAID, TIMEOUT, AML_FAILED or ERROR, and for each payment a static address (`MULTIPLE`) receives. The body is the Invoice object, as `GET /payment/get/{id}` answers it.',
        tags: ['Webhooks'],
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref('Invoice') } } },
        responses: WEBHOOK_ANSWER,
      },
    },
    'payment.held': {
      post: {
        operationId: 'paymentHeldWebhook',
        summary: 'A payment is held for the merchant to forward or return (opt-in)',
        description:
          'Off by default (dashboard: Settings, "Send a webhook when a payment is held"). Sent when the worker keeps a payment at its address: it came after the invoice was canceled, in a token the invoice does not take, too small to forward, or could not be forwarded. Told apart from the invoice webhook by its `event` field.',
        tags: ['Webhooks'],
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: ref('PaymentHeldEvent') } } },
        responses: WEBHOOK_ANSWER,
      },
    },
    ...Object.fromEntries(
      REFUND_EVENTS.map((event) => [
        event,
        {
          post: {
            operationId: `${event.replace('.', '_').replace(/_(\w)/, (_m, c: string) => c.toUpperCase())}Webhook`,
            summary: { 'refund.created': 'A refund was made (opt-in)', 'refund.claimed': 'The customer entered the refund\'s address: top it up (opt-in)', 'refund.sent': 'A refund reached the customer (opt-in)', 'refund.failed': 'A refund could not be sent (opt-in)' }[event],
            description: 'Off by default (dashboard: Settings, "Send webhooks about refunds"). Sent to the refunded invoice\'s `webhook_url`, or else the merchant\'s default; told apart from the invoice webhook by its `event` field.',
            tags: ['Webhooks'],
            parameters: WEBHOOK_HEADERS,
            requestBody: { required: true, content: { 'application/json': { schema: ref('RefundEvent') } } },
            responses: WEBHOOK_ANSWER,
          },
        },
      ]),
    ),
  };
}

/**
 * The OpenAPI 3.1 description of /v1/api (spec part 4), generated from the zod
 * schemas the routes validate and serialize with. Served at /openapi.json.
 */
export function openApiDocument(): Json {
  return derived(openApiDocument, makeDocument);
}

function makeDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tron invoicing API',
      version: '1',
      description:
        'Merchant API for TRX and USDT (TRC-20) invoices, transactions and mass payouts. Every error is `{"detail": ...}`. Where the specification is silent, each operation says what this service does; the webhooks it sends (signed as Standard Webhooks) are in the `webhooks` section.',
    },
    servers: [{ url: '/v1/api', description: 'This service' }],
    security: [{ apiKey: [] }],
    tags: [{ name: 'Invoices' }, { name: 'Mass payouts' }, { name: 'Transactions' }, { name: 'Account' }, { name: 'Webhooks' }],
    paths: paths(),
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'The API key as the whole header value (`Authorization: tk_...`); `Bearer`, `Token` and `Api-Key` prefixes are accepted too.',
        },
      },
      schemas: { ...components('input', REQUESTS), ...components('output', RESPONSES) },
    },
  };
}
