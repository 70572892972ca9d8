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
import { idempotent } from '../idempotency';
import { releaseHeld } from '../releaseHeld';
import { pageEnvelope } from '../pagination';
import { idParam, queryObject, readJson, textParam } from '../request';
import type { ApiCaller } from '@/lib/auth/authenticate';
import { routeOf, type RequestContext, type Route } from '../router';

const route = routeOf<ApiCaller>();

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
 * client and returns the JSON the spec shows.
 */
export const API_ROUTES: readonly Route<ApiCaller>[] = [
  route('GET', '/merchant', async ({ merchant }) => merchantJson(merchant)),

  route('POST', '/payment/create', async (ctx) => {
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first answer instead of a second invoice (docs/api.md),
    // and a repeated estimate its first figures.
    if (isPayoutEstimateBody(body)) return idempotent(ctx, body, () => payoutEstimateResponse(ctx.db, body));
    return idempotent(ctx, body, async () => {
      const input = parseOrThrow(createInvoiceSchema, body);
      await checkInvoiceCreationRate(apiKeyCaller(ctx.apiKey));
      return invoiceJson(await createInvoice(ctx.db, rateSource(), ctx.merchant, input));
    });
  }),

  route('GET', '/payment/get/:id', async ({ db, merchant, params }) => invoiceJson(await getInvoice(db, merchant, idParam(params.id, INVOICE_NOT_FOUND)))),

  route('DELETE', '/payment/:id/cancel', async ({ db, merchant, params }) => invoiceJson(await cancelInvoice(db, merchant, idParam(params.id, INVOICE_NOT_FOUND)))),

  // Not in the spec (issue 36): refunds of a sale, sent as one-target payouts the merchant tops up (docs/refunds.md).
  route('POST', '/payment/:id/refund', async (ctx) => {
    const id = idParam(ctx.params.id, INVOICE_NOT_FOUND);
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first refund again instead of a second one (docs/api.md).
    return idempotent(ctx, body, () => createRefund(ctx.db, ctx.merchant, id, body));
  }),

  route('GET', '/payment/:id/refunds', async ({ db, merchant, params }) => listRefunds(db, merchant, idParam(params.id, INVOICE_NOT_FOUND))),

  route('GET', '/refund/:id', async ({ db, merchant, params }) => getRefund(db, merchant, idParam(params.id, REFUND_NOT_FOUND))),

  route('DELETE', '/refund/:id/cancel', async ({ db, merchant, params }) => cancelRefund(db, merchant, idParam(params.id, REFUND_NOT_FOUND))),

  route('GET', '/payment/list', listInvoicesRoute),

  route('POST', '/payment/multiple_transfer/calculate', async (ctx) => {
    const body = await readJson(ctx.req);
    // Creates nothing; with an Idempotency-Key a repeat still gets the first figures (issue 36: the header on every POST).
    return idempotent(ctx, body, () => payoutEstimateResponse(ctx.db, body));
  }),

  route('POST', '/payment/multiple_transfer/create', async (ctx) => {
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first answer instead of a second payout (docs/api.md).
    return idempotent(ctx, body, async () => {
      await checkInvoiceCreationRate(apiKeyCaller(ctx.apiKey));
      return createPayoutResponse(ctx.db, ctx.merchant, body);
    });
  }),

  route('GET', '/rates', async ({ url }) => rateJson(rateSource(), url.searchParams.get('currency'))),

  route('GET', '/transaction/list', async ({ db, merchant, url }) => {
    const { filter, page } = splitPage(parseOrThrow(listTransactionsQuerySchema, queryObject(url)));
    const { count, rows } = await listTransactions(db, merchant.id, filter, page, 'api');
    return pageEnvelope(url, page, count, rows.map(apiTransactionJson));
  }),

  // Not in the spec (issue 36): held payments, and their release, for integrators (docs/api.md, "Held payments").
  route('GET', '/held_payment/list', async ({ db, merchant, url }) => {
    const { filter, page } = splitPage(parseOrThrow(listHeldPaymentsQuerySchema, queryObject(url)));
    const { count, rows } = await listHeldPayments(db, merchant.id, filter, page);
    return pageEnvelope(url, page, count, rows);
  }),

  route('GET', '/held_payment/:trn_hash', async ({ db, merchant, params }) => getHeldPayment(db, merchant.id, textParam(params.trn_hash, HELD_PAYMENT_NOT_FOUND))),

  route('POST', '/held_payment/:trn_hash/release', async (ctx) => {
    const trnHash = textParam(ctx.params.trn_hash, HELD_PAYMENT_NOT_FOUND);
    const body = await readJson(ctx.req);
    // With an Idempotency-Key, a repeat gets the first answer again (docs/api.md), as creation does.
    return idempotent(ctx, body, async () => releaseHeld(ctx.db, ctx.merchant.id, trnHash, parseOrThrow(releaseHeldSchema, body)));
  }),

  route('GET', '/transaction/:trn_hash', async ({ db, merchant, params }) => apiTransactionJson(await getTransaction(db, merchant.id, textParam(params.trn_hash, TRANSACTION_NOT_FOUND)))),
];
