import { keysetBatches } from '@/lib/export/batches';
import { Prisma, type PrismaClient, type Transaction } from '@/lib/generated/prisma/client';
import { TransactionType } from '@/lib/generated/prisma/enums';
import { notFound } from '@/lib/errors';
import type { Page } from '@/lib/schemas/page';
import { likeLiteral } from '@/lib/schemas/listQuery';
import { CURRENCIES, type Currency } from '@/lib/money/tokens';
import { dayStartUtc, nextDayStartUtc } from '@/lib/time';
import { listTransactionGroups } from './groups';
import { API_TRANSACTION_TYPES, type DashboardTransactionType, type ListTransactionsQuery, type TransactionAudience } from './schemas';

/** The list's filters and order: the query without its page (the page is the list function's own argument). */
export type TransactionListFilter = Omit<ListTransactionsQuery, 'limit' | 'offset'>;

export const TRANSACTION_NOT_FOUND = 'Address not found.';

/**
 * A send attempt that never entered a block did not happen on chain, so clients never see it. Nor a
 * payment seen before its block is final, or the sends made for it meanwhile (issue 24): it may
 * still vanish in a reorganisation, and a listed PAYMENT reads as money received. The merchant
 * API sees only the spec's four types (issue 34): the energy pool's operations (DELEGATE,
 * UNDELEGATE, ...) are not merchant transactions; the dashboard shows them.
 */
// (send_state is NULL on incoming rows, and NOT (NULL = 'FAILED') would drop them.)
const visible = (merchantId: number, audience: TransactionAudience): Prisma.TransactionWhereInput => ({
  merchantId,
  solidified: true,
  OR: [{ sendState: null }, { sendState: { not: 'FAILED' } }],
  NOT: { source: { is: { solidified: false } } },
  ...(audience === 'api' && { type: { in: [...API_TRANSACTION_TYPES] } }),
});

function searchFilter(term: string, audience: TransactionAudience): Prisma.TransactionWhereInput[] {
  const or: Prisma.TransactionWhereInput[] = [
    { trnHash: { contains: likeLiteral(term), mode: 'insensitive' } },
    { fromAddress: { contains: likeLiteral(term), mode: 'insensitive' } },
    { toAddress: { contains: likeLiteral(term), mode: 'insensitive' } },
  ];
  if (/^\d{1,9}$/.test(term)) or.push({ invoiceId: Number(term) });
  const upper = term.toUpperCase();
  if ((Object.values(TransactionType) as string[]).includes(upper)) or.push({ type: upper as TransactionType });
  if (upper === 'REFUND' && audience === 'dashboard') or.push(REFUND_SEND);
  if ((CURRENCIES as readonly string[]).includes(upper)) or.push({ currency: upper as Currency });
  return or;
}

/**
 * A refund's send (docs/refunds.md): the TRANSFER of a payout that is a refund's. The dashboard
 * lists it as its own type, REFUND, and leaves it out of TRANSFER; the API answers it as the
 * TRANSFER it is (spec 2.2), and cannot ask for REFUND (its schema refuses it).
 */
const REFUND_SEND: Prisma.TransactionWhereInput = { type: 'TRANSFER', sendPurpose: 'PAYOUT_TARGET', invoice: { is: { refundOf: { isNot: null } } } };

function typeWhere(type: DashboardTransactionType, audience: TransactionAudience): Prisma.TransactionWhereInput {
  if (type === 'REFUND') return REFUND_SEND;
  if (type === 'TRANSFER' && audience === 'dashboard') return { type: 'TRANSFER', NOT: REFUND_SEND };
  return { type };
}

/** The filters and order of the transaction list (spec 4.7, docs/api.md), shared by the list and the CSV export. */
function transactionListQuery(merchantId: number, q: TransactionListFilter, audience: TransactionAudience) {
  const createdAt: Prisma.DateTimeFilter = {};
  if (q.date_from) createdAt.gte = dayStartUtc(q.date_from);
  if (q.date_to) createdAt.lt = nextDayStartUtc(q.date_to);
  const where: Prisma.TransactionWhereInput = {
    AND: [
      visible(merchantId, audience),
      {
        ...(q.type && typeWhere(q.type, audience)),
        ...(q.invoice_id !== undefined && { invoiceId: q.invoice_id }),
        ...(q.from_address && { fromAddress: q.from_address }),
        ...(q.to_address && { toAddress: q.to_address }),
        ...(q.trn_hash && { trnHash: q.trn_hash }),
        ...(q.has_aml !== undefined && { amlCheck: q.has_aml ? { not: Prisma.DbNull } : { equals: Prisma.DbNull } }),
        ...(q.currency && { currency: q.currency }),
        ...((q.date_from || q.date_to) && { createdAt }),
        ...(q.search && { OR: searchFilter(q.search, audience) }),
      },
    ],
  };
  const direction: Prisma.SortOrder = q.ordering.startsWith('-') ? 'desc' : 'asc';
  const field = q.ordering.replace(/^-/, '');
  // A transaction's status is where it stands in processing: its send state, or for incoming ones, its payment state.
  const orderBy: Prisma.TransactionOrderByWithRelationInput[] =
    field === 'amount' ? [{ amountUnits: direction }] : field === 'status' ? [{ sendState: direction }, { paymentState: direction }] : [{ createdAt: direction }];
  return { where, orderBy: [...orderBy, { id: direction }] };
}

/**
 * One page of the list. The API's is a page of rows (spec 4.7, unchanged); the dashboard's a page of
 * groups, each row the head of one (a payment, forward, refund or payout), its plumbing added by
 * dashboardTransactionRows (lib/transactions/groups.ts, issue 38 item 4); `count` counts what is paged.
 */
export async function listTransactions(prisma: PrismaClient, merchantId: number, q: TransactionListFilter, page: Page, audience: TransactionAudience): Promise<{ count: number; rows: Transaction[] }> {
  if (audience === 'dashboard') return listTransactionGroups(prisma, merchantId, q, page);
  const { where, orderBy } = transactionListQuery(merchantId, q, audience);
  const [count, rows] = await prisma.$transaction([
    prisma.transaction.count({ where }),
    prisma.transaction.findMany({ where, orderBy, take: page.limit, skip: page.offset }),
  ]);
  return { count, rows };
}

/** Every transaction the list's filters match, in its order, `batchSize` at a time (lib/export/batches.ts), for the CSV export. */
export function transactionBatches(prisma: PrismaClient, merchantId: number, q: TransactionListFilter, audience: TransactionAudience, batchSize = 1000): AsyncGenerator<Transaction[]> {
  const { where, orderBy } = transactionListQuery(merchantId, q, audience);
  return keysetBatches(q.ordering, batchSize, ({ bound, after }) => prisma.transaction.findMany({ where: { AND: [where, bound] }, orderBy, take: batchSize, ...after }));
}

/** GET /transaction/{trn_hash}: one the API's list shows; a pool operation's hash is 404 like an unknown one. */
export async function getTransaction(prisma: PrismaClient, merchantId: number, trnHash: string): Promise<Transaction> {
  const row = await prisma.transaction.findFirst({ where: { ...visible(merchantId, 'api'), trnHash }, orderBy: { id: 'asc' } });
  if (!row) throw notFound(TRANSACTION_NOT_FOUND);
  return row;
}
