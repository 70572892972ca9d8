import { keysetBatches } from '@/lib/export/batches';
import { sqlPool } from '@/lib/db/client';
import { invoicesWithAmounts } from '@/lib/db/rows';
import { plainListCount, plainListPageIds } from './listSql';
import { searchedId, textSearchCount } from './searchCount';
import { config } from '@/lib/config';
import { addressFromXpub } from '@/lib/chain/keys';
import { NO_ACCOUNT_PREPARED } from '@/lib/merchants/accounts';
import { Prisma, type InvoiceStatus, type Merchant, type PrismaClient } from '@/lib/generated/prisma/client';
import { OPEN_PAYMENT_STATES } from '@/lib/payments/states';
import { AppError, fieldErrors, invalidInput, notFound } from '@/lib/errors';
import type { Page } from '@/lib/schemas/page';
import { likeLiteral } from '@/lib/schemas/listQuery';
import { formatScaled, parseScaled } from '@/lib/money/decimal';
import { amountDue, convertUnits, usdToTokenUnits } from '@/lib/money/fees';
import { CURRENCIES, RATE_DECIMALS, TOKEN_DECIMALS, USD_DECIMALS, type Currency } from '@/lib/money/tokens';
import type { RateSource } from '@/lib/rates/source';
import { dayStartUtc, nextDayStartUtc } from '@/lib/time';
import { INVOICE_ORDERING, type CreateInvoiceInput, type ListInvoicesQuery } from './schemas';
import { invoiceInclude, invoiceJsonColumns, type InvoiceJsonSource, type InvoiceRecord } from './serialize';
import { CANCELABLE, parseStatus } from './states';
import { changeInvoiceStatus } from './transitions';

export const INVOICE_NOT_FOUND = 'No Invoice matches the given query.';
const NO_TARGET_WALLET = "User's target wallet address is not set";
// Static-address invoices never expire; expired_at is still a timestamp for clients that parse it.
const STATIC_ADDRESS_LIFETIME_MS = 100 * 365 * 86_400_000;

/**
 * A fresh HD address for a new invoice of the merchant (payment or payout) and its index. The
 * index comes from one sequence (migration 0041), so nothing is locked: a merchant's creations
 * run in parallel (issue 16; before, an UPDATE of the merchant row handed out indexes). The
 * address derives from the merchant's account xpub: the web holds no mnemonic and stores no
 * private key; the worker derives the key when it signs (lib/payments/process.ts). An index
 * whose invoice insert then fails, or that a stopped process had not handed out, is skipped,
 * never handed out twice.
 */
export async function allocateInvoiceAddress(prisma: PrismaClient, merchant: Pick<Merchant, 'id' | 'accountXpub'>) {
  if (!merchant.accountXpub) throw new AppError('UNAVAILABLE', NO_ACCOUNT_PREPARED);
  const addressIndex = await nextAddressIndex(prisma);
  return { address: addressFromXpub(merchant.accountXpub, 'invoice', addressIndex), addressIndex };
}

/**
 * Indexes are taken from the sequence INDEX_BLOCK at a time and handed out by this process, so
 * a creation makes no round trip for its index (issue 16). Each database (client) has its own
 * block: the sequence is per database.
 */
const INDEX_BLOCK = 32;
const indexBlocks = new WeakMap<PrismaClient, { spare: number[]; refill: Promise<void> | null }>();

async function nextAddressIndex(prisma: PrismaClient): Promise<number> {
  let block = indexBlocks.get(prisma);
  if (!block) indexBlocks.set(prisma, (block = { spare: [], refill: null }));
  const b = block;
  while (b.spare.length === 0) {
    b.refill ??= prisma.$queryRaw<{ index: number }[]>`SELECT nextval('invoice_address_index_seq')::int AS index FROM generate_series(1, ${INDEX_BLOCK}::int)`
      .then((rows) => void b.spare.push(...rows.map((r) => r.index).sort((x, y) => x - y)))
      .finally(() => (b.refill = null));
    await b.refill;
  }
  return b.spare.shift()!;
}

/**
 * The invoice and its per-token rows in one statement, a named (prepared) statement on pg (issue
 * 16: Prisma's nested create made six round trips, BEGIN, two INSERTs, two SELECTs and COMMIT,
 * at six times the CPU). The counters' triggers (migration 0040) fire as for any INSERT.
 */
const CREATE_INVOICE_SQL = `
  WITH invoice AS (
    INSERT INTO invoices (merchant_id, type, amount_usd, currencies, order_id, address, address_index, client_commission,
                          webhook_url, redirect_url, description, expired_at, created_at, updated_at)
    VALUES ($1, $2::"InvoiceType", $3::numeric, $4::text[]::"Currency"[], $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
    RETURNING id
  ), amounts AS (
    INSERT INTO invoice_currencies (invoice_id, currency, rate_usd, due_units, fee_units)
    SELECT invoice.id, a.currency::"Currency", a.rate::numeric, a.due::bigint, a.fee::bigint
      FROM invoice, unnest($14::text[], $15::text[], $16::text[], $17::text[]) AS a(currency, rate, due, fee)
  )
  SELECT id FROM invoice`;

export async function createInvoice(prisma: PrismaClient, rates: RateSource, merchant: Merchant, input: CreateInvoiceInput): Promise<InvoiceRecord> {
  if (!merchant.targetWalletAddress) throw invalidInput(NO_TARGET_WALLET);
  const c = config();
  const quotes = await Promise.all(input.currencies.map((currency) => rates.quote(currency)));
  const amounts = quotes.map((q) => {
    const base = usdToTokenUnits(input.amountMicros, parseScaled(q.rateUsd, RATE_DECIMALS));
    const { dueUnits, feeUnits } = amountDue(base, c.FORWARDING_FEE_PERCENT, input.clientCommission);
    return { currency: q.currency, rateUsd: q.rateUsd, dueUnits, feeUnits };
  });
  if (input.type === 'SINGLE') {
    const trxRate = quotes.find((q) => q.currency === 'TRX')?.rateUsd ?? (await rates.quote('TRX')).rateUsd;
    refuseBelowForwardingCost(amounts, input.amountMicros, trxRate, c);
  }
  const createdAt = new Date();
  const expiredAt = new Date(createdAt.getTime() + (input.type === 'SINGLE' ? (input.expiryMinutes ?? c.DEFAULT_EXPIRY_MINUTES) * 60_000 : STATIC_ADDRESS_LIFETIME_MS));

  const { address, addressIndex } = await allocateInvoiceAddress(prisma, merchant);
  const amountUsd = input.type === 'SINGLE' ? formatScaled(input.amountMicros, USD_DECIMALS) : null;
  // One statement writes the invoice and its per-token rows (CREATE_INVOICE_SQL): atomic
  // without a transaction, one round trip where Prisma's nested create made six, through pg.
  const { rows } = await sqlPool(prisma).query({
    name: 'invoice-create',
    text: CREATE_INVOICE_SQL,
    values: [
      merchant.id, input.type, amountUsd, input.currencies, input.orderId ?? null, address, addressIndex, input.clientCommission,
      input.webhookUrl ?? null, input.redirectUrl ?? null, input.description ?? null, expiredAt, createdAt,
      amounts.map((a) => a.currency), amounts.map((a) => a.rateUsd), amounts.map((a) => a.dueUnits.toString()), amounts.map((a) => a.feeUnits.toString()),
    ],
  });
  const id = (rows[0] as { id: number }).id;
  // The record as the row now stands, from what was written: every column of the model must be
  // named here (the type says so), and test/api-create-invoice.test.ts compares the answer with
  // the invoice read back.
  return {
    id,
    merchantId: merchant.id,
    type: input.type,
    status: 'ACTIVE',
    amountUsd: amountUsd === null ? null : new Prisma.Decimal(amountUsd),
    currencies: input.currencies,
    orderId: input.orderId ?? null,
    address,
    addressIndex,
    privateKeyEnc: null,
    clientCommission: input.clientCommission,
    webhookUrl: input.webhookUrl ?? null,
    redirectUrl: input.redirectUrl ?? null,
    description: input.description ?? null,
    targetWallets: null,
    failedTargets: null,
    leaseOwner: null,
    leaseUntil: null,
    costUnits: null,
    costCurrency: null,
    expiredAt,
    createdAt,
    updatedAt: createdAt,
    amounts: amounts.map((a) => ({ invoiceId: id, currency: a.currency, rateUsd: new Prisma.Decimal(a.rateUsd), dueUnits: a.dueUnits, feeUnits: a.feeUnits, receivedUnits: 0n, forwardedUnits: 0n })),
    merchant: { email: merchant.email },
  };
}

/**
 * A SINGLE invoice must be worth more, in each token it accepts, than the most forwarding its
 * payment can cost (FORWARD_MAX_COST_*; a USDT forward's TRX converted at the invoice's rates).
 * Below that, the worker would hold the full payment as uneconomic (docs/worker.md, "Held
 * funds"): the customer pays, the merchant receives nothing and the invoice never completes.
 */
function refuseBelowForwardingCost(amounts: { currency: Currency; rateUsd: string; dueUnits: bigint; feeUnits: bigint }[], amountMicros: bigint, trxRateUsd: string, c: ReturnType<typeof config>): void {
  for (const a of amounts) {
    const worth = a.dueUnits - a.feeUnits;
    let cost = parseScaled(c.FORWARD_MAX_COST_TRX, TOKEN_DECIMALS);
    let costText = `up to ${c.FORWARD_MAX_COST_TRX} TRX`;
    if (a.currency === 'USDT') {
      const costSun = parseScaled(c.FORWARD_MAX_COST_USDT_IN_TRX, TOKEN_DECIMALS);
      cost = convertUnits(costSun, parseScaled(trxRateUsd, RATE_DECIMALS), parseScaled(a.rateUsd, RATE_DECIMALS));
      costText = `up to ${c.FORWARD_MAX_COST_USDT_IN_TRX} TRX of network fees, ${formatScaled(cost, TOKEN_DECIMALS)} USDT at current rates`;
    }
    if (worth > cost) continue;
    throw fieldErrors({
      amount: [
        `${formatScaled(amountMicros, USD_DECIMALS)} USD leaves the merchant ${formatScaled(worth, TOKEN_DECIMALS)} ${a.currency}, not more than forwarding a ${a.currency} payment can cost (${costText}); such a payment would be held, not forwarded`,
      ],
    });
  }
}

/** The merchant an invoice is read for: its id scopes the query, its e-mail is the invoice's `merchant_contact`. */
export type InvoiceOwner = Pick<Merchant, 'id' | 'email'>;

export async function getInvoice(prisma: PrismaClient, merchant: InvoiceOwner, id: number): Promise<InvoiceRecord> {
  // The caller's merchant is known: its e-mail is not read again with the invoice (one query
  // fewer). Read through pg, not Prisma's client (lib/db/rows.ts: a sixth of the CPU).
  const [invoice] = await invoicesWithAmounts(sqlPool(prisma), merchant.id, [id]);
  if (!invoice) throw notFound(INVOICE_NOT_FOUND);
  return { ...invoice, merchant: { email: merchant.email } };
}

/**
 * What keeps an open invoice from being canceled (issue 22, case 8; docs/api.md): money that
 * arrived for it. A SINGLE invoice with any payment detected (being forwarded, settled in
 * part, held) would otherwise end CANCELED showing money received and forwarded, with no
 * webhook. Held dust is the exception: it stays at the address whatever the status, and
 * otherwise 1 sun from anyone would make any invoice uncancelable. A static (MULTIPLE) address
 * can be retired once no payment of it is still being moved. A mass payout's top-up is
 * committed to its targets.
 */
export const CANCEL_BLOCKED: Prisma.InvoiceWhereInput = {
  OR: [
    { type: 'SINGLE', transactions: { some: { type: 'PAYMENT', NOT: { paymentState: 'HELD', heldReason: { startsWith: 'dust:' } } } } },
    { type: 'MULTIPLE', transactions: { some: { type: 'PAYMENT', paymentState: { in: [...OPEN_PAYMENT_STATES] } } } },
    { type: 'MULTIPLE_TRANSFER', transactions: { some: { type: 'TOPUP' } } },
  ],
};

/** Whether the merchant may cancel the invoice now: its status allows it and nothing blocks it (the dashboard's Cancel button). */
export async function isCancelable(prisma: PrismaClient, invoice: { id: number; status: InvoiceStatus }): Promise<boolean> {
  return CANCELABLE.includes(invoice.status) && (await prisma.invoice.count({ where: { id: invoice.id, NOT: CANCEL_BLOCKED } })) === 1;
}

/**
 * Cancels an open invoice; the conditional update (status and CANCEL_BLOCKED in one statement)
 * makes a race with the worker safe: a payment recorded after it is held as "invoice canceled".
 */
export async function cancelInvoice(prisma: PrismaClient, merchant: InvoiceOwner, id: number): Promise<InvoiceRecord> {
  const current = await getInvoice(prisma, merchant, id);
  const canceled = await prisma.$transaction((tx) => changeInvoiceStatus(tx, current, 'CANCELED', { where: { merchantId: merchant.id, NOT: CANCEL_BLOCKED } }));
  if (!canceled) throw invalidInput('Invoice cannot be canceled');
  return getInvoice(prisma, merchant, id);
}

const ORDER_COLUMNS: Record<(typeof INVOICE_ORDERING)[number], 'createdAt' | 'amountUsd' | 'status'> = {
  created_at: 'createdAt',
  amount: 'amountUsd',
  status: 'status',
};

/**
 * What `search` matches, in two parts: `rows`, the conditions only rows can answer (substring of
 * address or description, exact id), and what the term names as a status or a token, which the
 * counters can answer too (countInvoices). `disjointRows` are the same matches split so that no
 * row is in two of them, for counting (countInvoices).
 */
function searchTerms(term: string) {
  const address: Prisma.InvoiceWhereInput = { address: { contains: likeLiteral(term), mode: 'insensitive' } };
  const description: Prisma.InvoiceWhereInput = { description: { contains: likeLiteral(term), mode: 'insensitive' } };
  // NOT (description ILIKE ...) is NULL, not true, on an invoice without a description.
  const notDescription: Prisma.InvoiceWhereInput = { OR: [{ description: null }, { NOT: description }] };
  const id = searchedId(term);
  const rows: Prisma.InvoiceWhereInput[] = [address, description, ...(id !== undefined ? [{ id }] : [])];
  const disjointRows: Prisma.InvoiceWhereInput[] = [
    description,
    { AND: [address, notDescription] },
    ...(id !== undefined ? [{ AND: [{ id }, { NOT: address }, notDescription] }] : []),
  ];
  const status = parseStatus(term) ?? undefined;
  const upper = term.toUpperCase();
  const currency = (CURRENCIES as readonly string[]).includes(upper) ? (upper as Currency) : undefined;
  return { rows, disjointRows, status, currency };
}

function searchFilter(term: string): Prisma.InvoiceWhereInput[] {
  const { rows, status, currency } = searchTerms(term);
  return [...rows, ...(status ? [{ status }] : []), ...(currency ? [{ currencies: { has: currency } }] : [])];
}

/** The order of the invoice list, or its exact reverse (ties by id in the same direction). */
function invoiceOrder(ordering: string, reversed = false): Prisma.InvoiceOrderByWithRelationInput[] {
  const descending = ordering.startsWith('-') !== reversed;
  const column = ORDER_COLUMNS[ordering.replace(/^-/, '') as keyof typeof ORDER_COLUMNS];
  const direction = descending ? 'desc' : 'asc';
  // amount: MULTIPLE invoices (no amount) first when ascending, last when descending; reversing
  // a page flips both, so it walks the same index (migration 0040) backwards.
  const nulls = ordering.startsWith('-') ? (reversed ? 'first' : 'last') : reversed ? 'last' : 'first';
  return [column === 'amountUsd' ? { amountUsd: { sort: direction, nulls } } : { [column]: direction }, { id: direction }];
}

/** The filters and order of the invoice list (spec 4.2, docs/api.md), shared by the list and the CSV export. */
function invoiceListQuery(merchantId: number, q: ListInvoicesQuery) {
  const createdAt: Prisma.DateTimeFilter = {};
  if (q.date_from) createdAt.gte = dayStartUtc(q.date_from);
  if (q.date_to) createdAt.lt = nextDayStartUtc(q.date_to);
  const where: Prisma.InvoiceWhereInput = {
    merchantId,
    ...(q.type && { type: q.type }),
    ...(q.status && { status: q.status }),
    // "TRX,USDT" means invoices that accept both tokens.
    ...(q.currency && { currencies: { hasEvery: q.currency } }),
    ...((q.date_from || q.date_to) && { createdAt }),
    ...(q.search && { OR: searchFilter(q.search) }),
  };
  return { where, orderBy: invoiceOrder(q.ordering) };
}

type Db = PrismaClient | Prisma.TransactionClient;

const isRootClient = (prisma: Db): prisma is PrismaClient => '$transaction' in prisma;

/**
 * The list's exact `count` (spec 4.2). Type, status and currency filters are answered by the
 * invoice_counts table, which a trigger keeps in the same transaction as the invoice rows
 * (migration 0040), so the sum is exactly the number of rows the same snapshot would count, in
 * a few dozen rows instead of up to a million. Dates and search still count rows, through the
 * (merchant_id, created_at) and trigram indexes (docs/performance.md).
 */
async function countInvoices(prisma: Db, merchantId: number, q: ListInvoicesQuery, where: Prisma.InvoiceWhereInput): Promise<number> {
  if (q.date_from || q.date_to) return prisma.invoice.count({ where });
  const counters: Prisma.InvoiceCountWhereInput = {
    merchantId,
    ...(q.type && { type: q.type }),
    ...(q.status && { status: q.status }),
    ...(q.currency?.includes('TRX') && { acceptsTrx: true }),
    ...(q.currency?.includes('USDT') && { acceptsUsdt: true }),
  };
  const sum = async (extra: Prisma.InvoiceCountWhereInput) => Number((await prisma.invoiceCount.aggregate({ _sum: { n: true }, where: { AND: [counters, extra] } }))._sum.n ?? 0n);
  if (!q.search) return sum({});
  // A search that names a status or a token matches whole counter rows; the invoices that match
  // only by text or id are counted apart, excluding those, so none is counted twice.
  // The text matches are counted in disjoint parts, description first: each part's rows are
  // tested for their own substring, where one count of the OR tested both address and
  // description on every row (search=coffee, 200,000 descriptions: about a quarter less time).
  const { disjointRows, status, currency } = searchTerms(q.search);
  // A text search alone (no filter, the term names no status or token), outside a transaction:
  // the kept count, brought up to date (lib/invoices/searchCount.ts).
  if (!status && !currency && !q.type && !q.status && !q.currency && isRootClient(prisma)) return textSearchCount(sqlPool(prisma), merchantId, q.search);
  const named: Prisma.InvoiceCountWhereInput[] = [...(status ? [{ status }] : []), ...(currency ? [currency === 'TRX' ? { acceptsTrx: true } : { acceptsUsdt: true }] : [])];
  const { OR: _search, ...filters } = where;
  const notNamed: Prisma.InvoiceWhereInput[] = [...(status ? [{ NOT: { status } }] : []), ...(currency ? [{ NOT: { currencies: { has: currency } } }] : [])];
  const counts = await Promise.all([
    named.length > 0 ? sum({ OR: named }) : 0,
    ...disjointRows.map((part) => prisma.invoice.count({ where: { AND: [filters, part, ...notNamed] } })),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}

/** From this offset on, a page is found by ids first (see listInvoices). */
const DEEP_OFFSET = 1000;

/** A deep page's row, read in its snapshot: the columns invoiceJson reads and the currency rows. */
const listedColumns = { ...invoiceJsonColumns, amounts: true } as const;
type ListedInvoice = Prisma.InvoiceGetPayload<{ select: typeof listedColumns }>;

/**
 * A page (below DEEP_OFFSET) of a search that names a status or a token (`search=canceled`,
 * `search=usdt`). The plain OR of the name and the text match can only be walked along the
 * ordering's index, testing both substrings on every row; when the newest invoices lack that
 * status (all ACTIVE, say) the walk passes thousands of them. Instead the two parts are read
 * apart, split as the count splits them (countInvoices): the named part along its own index
 * (`(merchant_id, status, created_at, id)` for a status), the text part through the trigram
 * indexes without the named rows. The page is among the first offset + limit ids of each part,
 * so ordering those ids again and taking the window gives exactly the page of the OR.
 */
async function namedSearchPageIds(prisma: PrismaClient, where: Prisma.InvoiceWhereInput, named: Prisma.InvoiceWhereInput, text: Prisma.InvoiceWhereInput[], orderBy: Prisma.InvoiceOrderByWithRelationInput[], page: Page): Promise<number[]> {
  const { OR: _search, ...filters } = where;
  const take = page.offset + page.limit;
  const parts = await Promise.all(
    [{ AND: [filters, named] }, { AND: [filters, { OR: text }, { NOT: named }] }].map((part) => prisma.invoice.findMany({ where: part, select: { id: true }, orderBy, take })),
  );
  const ids = parts.flat().map((r) => r.id);
  // The whole filter again (a primary-key lookup of those few ids): an invoice changed since the
  // parts were read is not shown as matching when it no longer does.
  return (await prisma.invoice.findMany({ where: { AND: [where, { id: { in: ids } }] }, select: { id: true }, orderBy, skip: page.offset, take: page.limit })).map((r) => r.id);
}

/**
 * A page's ids below DEEP_OFFSET: without a search in SQL through pg (lib/invoices/listSql.ts);
 * a search naming a status or token in its two parts (namedSearchPageIds); any other search
 * through Prisma's filters.
 */
function shallowPageIds(prisma: PrismaClient, merchantId: number, q: ListInvoicesQuery, where: Prisma.InvoiceWhereInput, orderBy: Prisma.InvoiceOrderByWithRelationInput[], page: Page): Promise<number[]> {
  if (!q.search) return plainListPageIds(sqlPool(prisma), merchantId, q, page);
  const terms = searchTerms(q.search);
  const named: Prisma.InvoiceWhereInput | undefined = terms.status ? { status: terms.status } : terms.currency ? { currencies: { has: terms.currency } } : undefined;
  if (named) return namedSearchPageIds(prisma, where, named, terms.rows, orderBy, page);
  return prisma.invoice.findMany({ where, select: { id: true }, orderBy, take: page.limit, skip: page.offset }).then((r) => r.map((i) => i.id));
}

/**
 * A page of the merchant's invoices and the exact count (spec 4.2). `merchant` is the caller the
 * route has already loaded: every row of the list is its, so its contact (invoiceJson's
 * merchant_contact) is not read again per page.
 */
export async function listInvoices(prisma: PrismaClient, merchant: InvoiceOwner, q: ListInvoicesQuery, page: Page): Promise<{ count: number; rows: InvoiceJsonSource[] }> {
  const merchantId = merchant.id;
  const contact = { email: merchant.email };
  const { where, orderBy } = invoiceListQuery(merchantId, q);
  if (page.offset < DEEP_OFFSET) {
    // Count and page ids, then the page's rows and their currency rows through pg, side by side
    // (lib/db/rows.ts): Prisma's client spent more CPU turning 300 rows into objects than
    // PostgreSQL spent finding them.
    const sql = sqlPool(prisma);
    const [count, rows] = await Promise.all([
      q.search ? countInvoices(prisma, merchantId, q, where) : plainListCount(sql, merchantId, q),
      shallowPageIds(prisma, merchantId, q, where, orderBy, page).then((ids) => invoicesWithAmounts(sql, merchantId, ids)),
    ]);
    return { count, rows: rows.map((r) => ({ ...r, merchant: contact })) };
  }
  // A deep page: OFFSET still passes every skipped entry, so (1) only ids are read, from the
  // index of the ordering (an index-only scan: no invoice row is fetched for a skipped entry),
  // (2) past the middle the page is read from the other end, reversed, which skips
  // count - offset - limit entries instead of offset (offset=900000 of 1,000,000 skips 99,990),
  // and (3) only the page's rows are then loaded. Count, ids and rows come from one snapshot
  // (REPEATABLE READ), so the window from the end is the same page the offset names.
  const { count, rows } = await prisma.$transaction(
    async (tx) => {
      const count = await countInvoices(tx, merchantId, q, where);
      if (page.offset >= count) return { count, rows: [] as ListedInvoice[] };
      const after = count - page.offset - page.limit;
      const ids =
        after < page.offset
          ? (await tx.invoice.findMany({ where, select: { id: true }, orderBy: invoiceOrder(q.ordering, true), skip: Math.max(0, after), take: Math.min(page.limit, count - page.offset) }))
              .map((r) => r.id)
              .reverse()
          : (await tx.invoice.findMany({ where, select: { id: true }, orderBy, skip: page.offset, take: page.limit })).map((r) => r.id);
      const byId = new Map((await tx.invoice.findMany({ where: { id: { in: ids } }, select: listedColumns })).map((r) => [r.id, r]));
      return { count, rows: ids.flatMap((id) => byId.get(id) ?? []) };
    },
    { isolationLevel: 'RepeatableRead' },
  );
  return { count, rows: rows.map((r) => ({ ...r, merchant: contact })) };
}

/** Every invoice the list's filters match, in its order, `batchSize` at a time (lib/export/batches.ts), for the CSV export. */
export function invoiceBatches(prisma: PrismaClient, merchantId: number, q: ListInvoicesQuery, batchSize = 1000): AsyncGenerator<InvoiceRecord[]> {
  const { where, orderBy } = invoiceListQuery(merchantId, q);
  return keysetBatches(q.ordering, batchSize, ({ bound, after }) =>
    prisma.invoice.findMany({ where: { AND: [where, bound] }, include: invoiceInclude, orderBy, take: batchSize, ...after }),
  );
}
