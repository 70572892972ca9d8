import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import createClient, { type Middleware } from 'openapi-fetch';
import { OPENAPI_TYPES_FILE, openApiTypes } from '../../scripts/openapi-types';
import type { paths } from '../generated/openapi';
import { API_ROUTES } from '@/lib/http/api/routes';
import { startApp, type TestApp } from '../helpers/app';
import { httpRequest } from '../helpers/http';

type Doc = { openapi: string; paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: object }> }>; parameters?: { name: string; description?: string; schema: { type?: string; default?: unknown } }[] }>>; components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>; securitySchemes: Record<string, unknown> } };

/** Spec part 4: every endpoint, plus the estimate's second path (docs/api.md). */
const SPEC_OPERATIONS = [
  ['post', '/payment/create'],
  ['get', '/payment/list'],
  ['delete', '/payment/{id}/cancel'],
  ['get', '/payment/get/{id}'],
  ['post', '/payment/multiple_transfer/create'],
  ['post', '/payment/multiple_transfer/calculate'],
  ['get', '/transaction/list'],
  ['get', '/transaction/{trn_hash}'],
  ['get', '/merchant'],
  ['get', '/rates'],
] as const;
/** Additions at paths the spec does not use (docs/api.md): refunds and held payments (issue 36). */
const ADDED_OPERATIONS = [
  ['post', '/payment/{id}/refund'],
  ['get', '/payment/{id}/refunds'],
  ['get', '/refund/{id}'],
  ['delete', '/refund/{id}/cancel'],
  ['get', '/held_payment/list'],
  ['get', '/held_payment/{trn_hash}'],
  ['post', '/held_payment/{trn_hash}/release'],
] as const;

describe('OpenAPI document, reference page and a client generated from it', () => {
  let app: TestApp;
  let doc: Doc;

  before(async () => {
    app = await startApp({ PUBLIC_BASE_URL: 'https://api.example.test' });
    const res = await httpRequest(`${app.baseUrl}/openapi.json`);
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json;
  });
  after(() => app?.stop());

  it('describes every endpoint of the spec with its request, responses, {"detail"} errors and the Authorization header', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey', in: 'header', name: 'Authorization',
      description: 'The API key as the whole header value (`Authorization: tk_...`); `Bearer`, `Token` and `Api-Key` prefixes are accepted too.',
    });
    const operations = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m} ${p}`));
    assert.deepEqual(operations.sort(), [...SPEC_OPERATIONS, ...ADDED_OPERATIONS].map(([m, p]) => `${m} ${p}`).sort());
    for (const [method, p] of [...SPEC_OPERATIONS, ...ADDED_OPERATIONS]) {
      const op = doc.paths[p]![method]!;
      assert.ok(op.responses['200']?.content?.['application/json']?.schema, `${method} ${p} has a 200 schema`);
      assert.deepEqual(op.responses['403']?.content?.['application/json']?.schema, { $ref: '#/components/schemas/Error' }, `${method} ${p} documents the 403`);
    }
    assert.deepEqual(doc.components.schemas.Error?.required, ['detail']);
  });

  it("names in each operation's 403 the key scope its route needs (issue 40), read from the route table", () => {
    type Described = { responses: Record<string, { description?: string }> };
    for (const route of API_ROUTES) {
      const op = (doc.paths[route.path.replace(/:(\w+)/g, '{$1}')] as Record<string, Described> | undefined)?.[route.method.toLowerCase()];
      assert.ok(op, `${route.method} ${route.path} is in the document`);
      const forbidden = op.responses['403']?.description ?? '';
      if (typeof route.scope === 'string') {
        assert.ok(forbidden.includes(`\`This API key lacks the scope ${route.scope}.\``), `${route.method} ${route.path}: ${forbidden}`);
      } else {
        // POST /payment/create: its scope by its body, an invoice's or an estimate's; both named.
        for (const body of [{ type: 'SINGLE' }, { currency: 'TRX', target_wallets: [] }]) assert.ok(forbidden.includes(`\`${route.scope.ofBody(body)}\``), `${route.method} ${route.path}: ${forbidden}`);
      }
    }
  });

  it('carries the choices of docs/api.md: both spellings, clamped limit, comma currencies, underscore dates', () => {
    const invoice = doc.components.schemas.Invoice!;
    assert.ok(invoice.required?.includes('client_comission') && invoice.required.includes('client_commission'));
    const request = doc.components.schemas.CreateInvoiceRequest!.properties!;
    assert.ok('client_comission' in request && 'client_commission' in request);
    assert.deepEqual(doc.components.schemas.CreateInvoiceRequest!.required, ['type']);
    for (const list of ['/payment/list', '/transaction/list']) {
      const params = Object.fromEntries(doc.paths[list]!.get!.parameters!.map((p) => [p.name, p]));
      assert.equal(params.limit?.schema.type, 'integer');
      assert.equal(params.limit?.schema.default, 10);
      assert.match(params.limit?.description ?? '', /clamped to 300/);
      assert.match(params.date_from?.description ?? '', /YYYY_MM_DD/);
    }
    assert.match(JSON.stringify(request.currencies), /TRX,USDT/);
  });

  it("lists only the spec's transaction types, in responses and the list's filter (issue 34)", () => {
    const types = ['PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION'];
    assert.deepEqual((doc.components.schemas.Transaction!.properties!.type as { enum: string[] }).enum, types);
    const filter = doc.paths['/transaction/list']!.get!.parameters!.find((p) => p.name === 'type')!;
    assert.deepEqual((filter.schema as { enum?: string[] }).enum, types);
  });

  it('describes the webhooks a merchant receives (OpenAPI 3.1 webhooks): the invoice webhook and the opt-in payment.held and refund events, signed headers and all; summaries name no spec sections (issue 38)', () => {
    type Hook = { post: { operationId: string; parameters: { name: string; in: string }[]; requestBody: { content: Record<string, { schema: unknown }> } } };
    const hooks = (doc as unknown as { webhooks: Record<string, Hook> }).webhooks;
    assert.deepEqual(Object.keys(hooks).sort(), ['invoice', 'payment.held', 'refund.claimed', 'refund.created', 'refund.failed', 'refund.sent']);
    assert.deepEqual(hooks['refund.sent']!.post.requestBody.content['application/json']!.schema, { $ref: '#/components/schemas/RefundEvent' });
    assert.deepEqual(hooks.invoice!.post.requestBody.content['application/json']!.schema, { $ref: '#/components/schemas/Invoice' });
    assert.deepEqual(hooks['payment.held']!.post.requestBody.content['application/json']!.schema, { $ref: '#/components/schemas/PaymentHeldEvent' });
    for (const hook of Object.values(hooks)) {
      assert.deepEqual(hook.post.parameters.map((p) => `${p.in}:${p.name}`), ['header:webhook-id', 'header:webhook-timestamp', 'header:webhook-signature', 'header:X-Webhook-Signature', 'header:Idempotency-Key']);
    }
    const held = doc.components.schemas.PaymentHeldEvent!;
    assert.deepEqual(held.properties!.event, { type: 'string', const: 'payment.held' });
    assert.ok(held.required?.includes('held_reason') && held.required.includes('trn_hash'));
    const summaries = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => (op as unknown as { summary: string }).summary));
    for (const summary of summaries) assert.doesNotMatch(summary, /spec|\bor estimate\b/i, summary);
    // Nor does any text of the document send its reader to a spec section or a file of this repository.
    const texts = [...JSON.stringify(doc).matchAll(/"(?:description|summary)":"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
    assert.ok(texts.length > 50, 'the document\'s texts were read');
    for (const text of texts) assert.doesNotMatch(text, /\bspec \d|docs\/[\w-]+\.md|\blib\/|\.tsx?\b/i, text);
  });

  it('every schema in it is valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    assert.doesNotThrow(() => ajv.addSchema(doc, 'openapi.json').getSchema('openapi.json#/components/schemas/Invoice'));
    for (const name of Object.keys(doc.components.schemas)) assert.ok(ajv.getSchema(`openapi.json#/components/schemas/${name}`), name);
  });

  it('matches the committed generated types (regenerate with `npx tsx scripts/openapi-types.ts`)', async () => {
    assert.equal(await openApiTypes(doc), readFileSync(OPENAPI_TYPES_FILE, 'utf8'));
  });

  it('serves the Swagger UI reference and its assets from the app itself', async () => {
    const page = await httpRequest(`${app.baseUrl}/docs`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.deepEqual(sources, ['/docs/swagger-ui.css', '/docs/a11y.css', '/docs/swagger-ui-bundle.js', '/docs/init.js'], 'nothing from another origin');
    for (const src of sources) assert.equal((await httpRequest(`${app.baseUrl}${src}`)).status, 200, src);
    assert.match((await httpRequest(`${app.baseUrl}/docs/init.js`)).text, /url: '\/openapi\.json'[\s\S]*validatorUrl: null/);
    assert.equal((await httpRequest(`${app.baseUrl}/docs/package.json`)).status, 404);
    assert.equal((await httpRequest(`${app.baseUrl}/docs/..%2F..%2Fpackage.json`)).status, 404);
  });

  it('runs the whole invoice API through the generated client, every response matching the document', async () => {
    const { merchant, key } = await app.createMerchant();
    const { key: otherKey } = await app.createMerchant();
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
    const seen: { operation: string; status: number; body: unknown }[] = [];
    // Every response the client receives is checked against the document's schema for its operation and status.
    const recorder: Middleware = {
      async onResponse({ schemaPath, request, response }) {
        const method = request.method.toLowerCase();
        const op = doc.paths[schemaPath]?.[method];
        assert.ok(op, `${method} ${schemaPath} is documented`);
        const body = await response.clone().json();
        const declared = op.responses[String(response.status)];
        assert.ok(declared, `${method} ${schemaPath} documents status ${response.status}: ${JSON.stringify(body)}`);
        const pointer = `openapi.json#/paths/${schemaPath.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/${response.status}/content/application~1json/schema`;
        const validate = ajv.getSchema(pointer) as ValidateFunction;
        assert.ok(validate(body), `${method} ${schemaPath} ${response.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`);
        seen.push({ operation: `${method} ${schemaPath}`, status: response.status, body });
        return undefined;
      },
    };
    const api = createClient<paths>({ baseUrl: app.apiBase, headers: { Authorization: key } });
    api.use(recorder);

    const created = await api.POST('/payment/create', {
      body: { type: 'SINGLE', amount: '12.5', currencies: 'trx,USDT', order_id: 'client-1', client_commission: true, webhook_url: 'https://shop.example/hook', redirect_url: 'https://shop.example/done', description: 'typed' },
    });
    assert.equal(created.response.status, 200, JSON.stringify(created.error));
    const invoice = created.data!;
    assert.ok('id' in invoice && 'status' in invoice, 'an invoice, not an estimate');
    assert.equal(invoice.status, 'ACTIVE');
    assert.deepEqual(invoice.currencies_amounts, { TRX: 50.5, USDT: 12.625 });
    assert.equal(invoice.client_comission, true);
    const multiple = await api.POST('/payment/create', { body: { type: 'MULTIPLE', currencies: ['USDT'] } });
    assert.equal(multiple.response.status, 200);

    const got = await api.GET('/payment/get/{id}', { params: { path: { id: invoice.id } } });
    assert.equal(got.data?.order_id, 'client-1');
    const listed = await api.GET('/payment/list', { params: { query: { limit: 1000, ordering: '-created_at', currency: 'USDT' } } });
    assert.equal(listed.data?.count, 2);
    assert.deepEqual(listed.data?.results.map((r) => r.id), [multiple.data && 'id' in multiple.data ? multiple.data.id : -1, invoice.id]);
    assert.match(listed.data?.results[0]?.created_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);

    // Transactions are what the worker records from the chain (test/chain/worker.test.ts); here they are fixtures for the read endpoints.
    const aml = { id: 'chk1', status: 'SUCCESS', risk_score: 5, risk_level: 'low', exposure: { exchange: 0.9 }, report_url: 'https://aml.example/r.pdf', cost: 0.5, completed: true, created_at: '2025-01-10T00:00:00.000000+00:00' };
    await app.prisma.transaction.createMany({
      data: [
        { merchantId: merchant.id, invoiceId: invoice.id, type: 'PAYMENT', trnHash: 'c1a1', chainRef: 'c1a1:trx', amountUnits: 50_500_000n, currency: 'TRX', fromAddress: 'Tcustomer', toAddress: invoice.address, paymentState: 'SETTLED', amlCheck: aml, eventId: '4d5e0c1c-2f0a-4a3e-9c1b-111111111111' },
        { merchantId: merchant.id, invoiceId: invoice.id, type: 'TRANSFER', trnHash: 'c1b2', chainRef: 'c1b2:send', amountUnits: 50_000_000n, currency: 'TRX', fromAddress: invoice.address, toAddress: 'Tmerchant', sendState: 'CONFIRMED', eventId: '4d5e0c1c-2f0a-4a3e-9c1b-111111111111' },
      ],
    });
    const transactions = await api.GET('/transaction/list', { params: { query: { invoice_id: String(invoice.id), has_aml: 'true' } } });
    assert.deepEqual(transactions.data?.results.map((t) => t.trn_hash), ['c1a1']);
    const transaction = await api.GET('/transaction/{trn_hash}', { params: { path: { trn_hash: 'c1b2' } } });
    assert.equal(transaction.data?.aml_check, null);
    assert.equal((await api.GET('/transaction/list', { params: { query: { date_from: '2000_01_01', ordering: 'amount' } } })).data?.count, 2);

    // An invoice money has come to cannot be canceled (docs/api.md); one nothing has come to can, once.
    const paidInto = await api.DELETE('/payment/{id}/cancel', { params: { path: { id: invoice.id } } });
    assert.deepEqual(paidInto.error, { detail: 'Invoice cannot be canceled' });
    const open = await api.POST('/payment/create', { body: { type: 'SINGLE', amount: '12.5', currencies: ['TRX'], client_commission: true } });
    const openId = open.data && 'id' in open.data ? open.data.id : -1;
    const canceled = await api.DELETE('/payment/{id}/cancel', { params: { path: { id: openId } } });
    assert.equal(canceled.data?.status, 'CANCELED');
    const again = await api.DELETE('/payment/{id}/cancel', { params: { path: { id: openId } } });
    assert.deepEqual(again.error, { detail: 'Invoice cannot be canceled' });

    const account = await api.GET('/merchant');
    assert.equal(account.data?.email, merchant.email);
    const rate = await api.GET('/rates', { params: { query: { currency: 'TRX' } } });
    assert.deepEqual(rate.data, { currency: 'TRX', rate: 0.25, fee: 1 });

    // Errors are documented too, in the {"detail": ...} shape.
    assert.equal((await api.GET('/payment/get/{id}', { params: { path: { id: 999_999 } } })).error?.detail, 'No Invoice matches the given query.');
    assert.equal((await api.GET('/transaction/{trn_hash}', { params: { path: { trn_hash: 'nope' } } })).error?.detail, 'Address not found.');
    const invalid = await api.POST('/payment/create', { body: { type: 'SINGLE', currencies: ['BTC' as 'TRX'] } });
    assert.equal(invalid.response.status, 400);
    assert.deepEqual(Object.keys(invalid.error?.errors ?? {}).sort(), ['currencies[0]']);
    assert.equal((await api.GET('/payment/list', { params: { query: { status: 'NOPE' as 'ACTIVE' } } })).response.status, 400);
    assert.equal((await api.GET('/rates', { params: { query: { currency: 'BTC' as 'TRX' } } })).error?.detail, 'Currency not found');
    assert.equal((await api.GET('/merchant', { headers: { Authorization: 'tk_wrong' } })).error?.detail, 'Invalid API key');
    const stranger = createClient<paths>({ baseUrl: app.apiBase, headers: { Authorization: otherKey } });
    stranger.use(recorder);
    assert.equal((await stranger.GET('/payment/get/{id}', { params: { path: { id: invoice.id } } })).response.status, 404, "another merchant's invoice is not found");

    assert.deepEqual(
      [...new Set(seen.map((s) => s.operation))].sort(),
      ['delete /payment/{id}/cancel', 'get /merchant', 'get /payment/get/{id}', 'get /payment/list', 'get /rates', 'get /transaction/list', 'get /transaction/{trn_hash}', 'post /payment/create'],
    );
    assert.equal(seen.length, 20);
    // The check bites: an invoice missing one spelling, or with an extra field, does not match.
    const validateInvoice = ajv.getSchema('openapi.json#/components/schemas/Invoice') as ValidateFunction;
    const { client_commission: _dropped, ...oneSpelling } = canceled.data!;
    assert.equal(validateInvoice(canceled.data), true);
    assert.equal(validateInvoice(oneSpelling), false);
    assert.equal(validateInvoice({ ...canceled.data, secret: 1 }), false);
  });
});
