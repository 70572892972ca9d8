import { merchantJson } from '@/lib/merchants/serialize';
import { createInvoiceSchema, listInvoicesQuerySchema } from '@/lib/invoices/schemas';
import { apiKeyCaller, checkInvoiceCreationRate } from '@/lib/invoices/creationRate';
import { invoiceJson } from '@/lib/invoices/serialize';
import { cancelInvoice, createInvoice, getInvoice, INVOICE_NOT_FOUND } from '@/lib/invoices/service';
import { listInvoices } from '@/lib/invoices/list';
import { createPayoutResponse, isPayoutEstimateBody, payoutEstimateResponse } from '@/lib/payouts/service';
import { rateSource } from '@/lib/rates';
import { rateJson } from '@/lib/rates/service';
import { splitPage } from '@/lib/schemas/page';
import { listHeldPaymentsQuerySchema, listTransactionsQuerySchema, releaseHeldSchema } from '@/lib/transactions/schemas';
import { getHeldPayment, HELD_PAYMENT_NOT_FOUND, listHeldPayments } from '@/lib/transactions/releases';
import { cancelRefund, createRefund, getRefund, listRefunds, REFUND_NOT_FOUND } from '@/lib/refunds/service';
import { apiTransactionJson } from '@/lib/transactions/serialize';
import { getTransaction, listTransactions, TRANSACTION_NOT_FOUND } from '@/lib/transactions/service';
import { parseOrThrow } from '@/lib/validation';
import { apiKeyBy } from '../audit';
import { idempotent } from '../idempotency';
import { releaseHeld } from '../releaseHeld';
import { pageEnvelope } from '../pagination';
import { idParam, queryObject, readJson, textParam } from '../request';
import { requireScope, type ApiCaller } from '@/lib/auth/authenticate';
import type { ApiKeyScope } from '@/lib/auth/scopes';
import { routeOf, type Handler, type Method, type ParamsOf, type RequestContext, type Route } from '../router';

const route = routeOf<ApiCaller>();

/**
 * The scope a key needs for a route (issue 40, docs/api.md "Key scopes"): one, or for a route
 * whose body decides what it does (POST /payment/create: an invoice, or only a payout estimate),
 * a function of the parsed body.
 */
export type RouteScope = ApiKeyScope | { readonly ofBody: (body: unknown) => ApiKeyScope };

/** A row of the merchant API's table: the router's route and the scope it needs, as data. */
export interface ApiRoute extends Route<ApiCaller> {
  readonly scope: RouteScope;
}

/** A route that needs `scope`: the key is checked before the handler runs. */
function apiRoute<Path extends string>(method: Method, path: Path, scope: ApiKeyScope, handler: Handler<ParamsOf<Path>, ApiCaller>): ApiRoute {
  const row = route(method, path, async (ctx) => {
    requireScope(ctx.apiKey, scope);
    return handler(ctx);
  });
  return { ...row, scope };
}

/**
 * A route whose scope depends on its body: the body is read and the key checked before the
 * handler, which is given the body (a request's body can be read once), so a refused call stores
 * nothing, not even its Idempotency-Key.
 */
function apiRouteByBody<Path extends string>(
  method: Method,
  path: Path,
  scopeOf: (body: unknown) => ApiKeyScope,
  handler: (ctx: RequestContext<ParamsOf<Path>, ApiCaller>, body: unknown) => Promise<unknown>,
): ApiRoute {
  const row = route(method, path, async (ctx) => {
    const body = await readJson(ctx.req);
    requireScope(ctx.apiKey, scopeOf(body));
    return handler(ctx, body);
  });
  return { ...row, scope: { ofBody: scopeOf } };
}

/** One page of the merchant's invoices, filtered: the API's GET /payment/list and the dashboard's GET /invoices. */
export async function listInvoicesRoute({ db, merchant, url }: RequestContext<unknown>) {
  const { filter, page } = splitPage(parseOrThrow(listInvoicesQuerySchema, queryObject(url)));
  const { count, rows } = await listInvoices(db, merchant, filter, page);
  return pageEnvelope(url, page, count, rows.map(invoiceJson));
}

/**
 * The merchant API (spec part 4), every route of it: method, path below /v1/api, handler. The
 * router (lib/http/router.ts) answers everything else from this table: 404, 405, OPTIONS and HEAD. Each
 * handler parses its input with its domain's schemas, calls lib/ with the context's database
 * client and returns the JSON the spec shows. Every row names the key scope it needs (ApiRoute):
 * reading needs `read`; what creates, changes or sends needs its own `…:write`.
 */
export const API_ROUTES: readonly ApiRoute[] = [
  apiRoute('GET', '/merchant', 'read', async ({ merchant }) => merchantJson(merchant)),

  // An estimate moves and stores nothing, so a read-only key may ask for one; an invoice needs invoices:write.
  apiRouteByBody('POST', '/payment/create', (body) => (isPayoutEstimateBody(body) ? 'read' : 'invoices:write'), async (ctx, body) => {
    // With an Idempotency-Key, a repeat gets the first answer instead of a second invoice (docs/api.md),
    // and a repeated estimate its first figures.
    if (isPayoutEstimateBody(body)) return idempotent(ctx, body, () => payoutEstimateResponse(ctx.db, body));
    return idempotent(ctx, body, async () => {
      const input = parseOrThrow(createInvoiceSchema, body);
      await checkInvoiceCreationRate(apiKeyCaller(ctx.apiKey));
      return invoiceJson(await createInvoice(ctx.db, rateSource(), ctx.merchant, input));
    });
  }),

  apiRoute('GET', '/payment/get/:id', 'read', async ({ db, merchant, params }) => invoiceJson(await getInvoice(db, merchant, idParam(params.id, INVOICE_NOT_FOUND)))),

  apiRoute('DELETE', '/payment/:id/cancel', 'invoices:write', async ({ db, merchant, params }) => invoiceJson(await cancelInvoice(db, merchant, idParam(params.id, INVOICE_NOT_FOUND)))),

  // Not in the spec (issue 36): refunds of a sale, sent as one-target payouts the merchant tops up (docs/refunds.md).
  apiRoute('POST', '/payment/:id/refund', 'refunds:write', async (ctx) => {
    const id = idParam(ctx.params.id, INVOICE_NOT_FOUND);
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first refund again instead of a second one (docs/api.md).
    // Held money funds a refund only for a key that may also release it (payouts:write): with
    // refunds:write alone a key cannot make the service's money leave without the merchant's top-up.
    const fromHeld = ctx.apiKey.scopes.includes('payouts:write');
    return idempotent(ctx, body, () => createRefund(ctx.db, ctx.merchant, id, body, apiKeyBy(ctx), undefined, fromHeld));
  }),

  apiRoute('GET', '/payment/:id/refunds', 'read', async ({ db, merchant, params }) => listRefunds(db, merchant, idParam(params.id, INVOICE_NOT_FOUND))),

  apiRoute('GET', '/refund/:id', 'read', async ({ db, merchant, params }) => getRefund(db, merchant, idParam(params.id, REFUND_NOT_FOUND))),

  apiRoute('DELETE', '/refund/:id/cancel', 'refunds:write', async ({ db, merchant, params }) => cancelRefund(db, merchant, idParam(params.id, REFUND_NOT_FOUND))),

  apiRoute('GET', '/payment/list', 'read', listInvoicesRoute),

  // An estimate: it moves and stores nothing (its Idempotency-Key aside), so `read` suffices.
  apiRoute('POST', '/payment/multiple_transfer/calculate', 'read', async (ctx) => {
    const body = await readJson(ctx.req);
    // Creates nothing; with an Idempotency-Key a repeat still gets the first figures (issue 36: the header on every POST).
    return idempotent(ctx, body, () => payoutEstimateResponse(ctx.db, body));
  }),

  // Money leaves to addresses the caller names.
  apiRoute('POST', '/payment/multiple_transfer/create', 'payouts:write', async (ctx) => {
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first answer instead of a second payout (docs/api.md).
    return idempotent(ctx, body, async () => {
      await checkInvoiceCreationRate(apiKeyCaller(ctx.apiKey));
      return createPayoutResponse(ctx.db, ctx.merchant, body, apiKeyBy(ctx));
    });
  }),

  apiRoute('GET', '/rates', 'read', async ({ url }) => rateJson(rateSource(), url.searchParams.get('currency'))),

  apiRoute('GET', '/transaction/list', 'read', async ({ db, merchant, url }) => {
    const { filter, page } = splitPage(parseOrThrow(listTransactionsQuerySchema, queryObject(url)));
    const { count, rows } = await listTransactions(db, merchant.id, filter, page, 'api');
    return pageEnvelope(url, page, count, rows.map(apiTransactionJson));
  }),

  // Not in the spec (issue 36): held payments, and their release, for integrators (docs/api.md, "Held payments").
  apiRoute('GET', '/held_payment/list', 'read', async ({ db, merchant, url }) => {
    const { filter, page } = splitPage(parseOrThrow(listHeldPaymentsQuerySchema, queryObject(url)));
    const { count, rows } = await listHeldPayments(db, merchant.id, filter, page);
    return pageEnvelope(url, page, count, rows);
  }),

  apiRoute('GET', '/held_payment/:trn_hash', 'read', async ({ db, merchant, params }) => getHeldPayment(db, merchant.id, textParam(params.trn_hash, HELD_PAYMENT_NOT_FOUND))),

  // Held money leaves to an address the caller names, as a payout's does.
  apiRoute('POST', '/held_payment/:trn_hash/release', 'payouts:write', async (ctx) => {
    const trnHash = textParam(ctx.params.trn_hash, HELD_PAYMENT_NOT_FOUND);
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first answer again (docs/api.md), as creation does.
    return idempotent(ctx, body, async () => releaseHeld(ctx.db, ctx.merchant.id, trnHash, parseOrThrow(releaseHeldSchema, body), apiKeyBy(ctx)));
  }),

  apiRoute('GET', '/transaction/:trn_hash', 'read', async ({ db, merchant, params }) => apiTransactionJson(await getTransaction(db, merchant.id, textParam(params.trn_hash, TRANSACTION_NOT_FOUND)))),
];
