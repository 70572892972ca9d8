import type { PrismaClient, SendPurpose, Transaction } from '@/lib/generated/prisma/client';
import { join, queryRows, Sql, sql } from '@/lib/db/sql';
import type { Page } from '@/lib/schemas/page';
import { likeLiteral } from '@/lib/schemas/listQuery';
import { CURRENCIES } from '@/lib/money/tokens';
import { TransactionType } from '@/lib/generated/prisma/enums';
import { dayStartUtc, nextDayStartUtc } from '@/lib/time';
import type { DashboardTransactionType, ListTransactionsQuery } from './schemas';

/*
 * The dashboard's transactions grouped by what the merchant cares about (issue 38, item 4): one
 * group per payment, forward, refund or payout, the plumbing that made it happen (gas sent to the
 * address and returned, energy and bandwidth the pool lent and took back) in the group of the send
 * it was for. Every send of ours is stored with the payment it spends (`source_id`, its anchor) and
 * its step (`send_purpose`), so a group is an anchor and a family of steps:
 *
 * - FORWARD, REFUND, PAYOUT_TARGET, PAYOUT_RETURN(_TRX) and their _GAS, _ENERGY and _BANDWIDTH steps;
 * - a taking back (ENERGY_RECLAIM, `send_index` = the lending's row) goes with its lending;
 * - a gas remainder returned (GAS_RETURN) with the refund when the payment was returned, else the forward;
 * - anything else (a payment, a top-up, a send with no anchor) is a group of its own.
 *
 * The group's head is its first principal send (the transfer itself), or its first row when none is
 * listed (the transfer not built yet, or failed); the other rows are its plumbing. A payout's group
 * holds all its targets' transfers (they share the anchor), so its row says what they moved together
 * (payoutTotalOf), not what the head alone did. Written in SQL so that the list pages and counts by
 * groups in the database, never splitting one across pages.
 */

/** The steps a group is named after: the transfers a merchant sees as money moving. */
const PRINCIPAL = ['FORWARD', 'REFUND', 'PAYOUT_TARGET', 'PAYOUT_RETURN', 'PAYOUT_RETURN_TRX'] as const;

/** The families of steps: a transfer and the steps that made it possible, booked with the same anchor. */
const FAMILIES = {
  FORWARD: ['FORWARD', 'FORWARD_GAS', 'FORWARD_ENERGY', 'FORWARD_BANDWIDTH'],
  REFUND: ['REFUND', 'REFUND_GAS', 'REFUND_ENERGY', 'REFUND_BANDWIDTH'],
  PAYOUT: ['PAYOUT_TARGET', 'PAYOUT_GAS', 'PAYOUT_ENERGY', 'PAYOUT_BANDWIDTH'],
  PAYOUT_RETURN: ['PAYOUT_RETURN', 'PAYOUT_RETURN_TRX', 'PAYOUT_RETURN_GAS', 'PAYOUT_RETURN_ENERGY'],
} as const satisfies Record<string, readonly SendPurpose[]>;

/** The family of a step (null for ENERGY_RECLAIM, GAS_RETURN, POOL_STAKE, which have none of their own). */
export function familyOf(purpose: SendPurpose): keyof typeof FAMILIES | null {
  for (const [name, steps] of Object.entries(FAMILIES)) if ((steps as readonly string[]).includes(purpose)) return name as keyof typeof FAMILIES;
  return null;
}

/** The group key of the sends of anchor `anchorId` in a family: as GROUP_KEY writes it. */
export const familyKey = (anchorId: number, name: string) => `${anchorId}:${name}`;

// Literals, not parameters: a text parameter does not compare with an enum column.
const literals = (values: readonly string[]) => Sql.raw(values.map((v) => `'${v}'`).join(', '));
const family = (purpose: Sql) =>
  sql`CASE ${join(Object.entries(FAMILIES).map(([name, steps]) => sql`WHEN ${purpose} IN (${literals(steps)}) THEN ${Sql.raw(`'${name}'`)}`), ' ')} END`;

/** The group key of row `t`, with `s` its anchor and `l` (for a taking back) the lending it takes back. */
const GROUP_KEY = sql`CASE
  WHEN t.source_id IS NULL OR t.send_purpose IS NULL THEN 'own:' || t.id
  WHEN t.send_purpose = 'ENERGY_RECLAIM' THEN COALESCE(t.source_id || ':' || ${family(sql`l.send_purpose`)}, 'own:' || t.id)
  WHEN t.send_purpose = 'GAS_RETURN' THEN t.source_id || ':' || CASE WHEN s.payment_state IN ('REFUNDING', 'REFUNDED') THEN 'REFUND' ELSE 'FORWARD' END
  ELSE COALESCE(t.source_id || ':' || ${family(sql`t.send_purpose`)}, 'own:' || t.id)
END`;

/**
 * What a payout's group moved (issue 38, item 4): when its head is a payout's target transfer, the
 * total of the target transfers listed in the group, in its token (a payout's targets are all in the
 * payout's one token), and how many addresses they went to. Null for any other group, and when no
 * target is listed yet (the head is then a step). A refund is a one-target payout: its total is its
 * one transfer. `members` is the group's visible rows, head first (groupsOf).
 */
export function payoutTotalOf(members: readonly Transaction[]): { units: bigint; addresses: number } | null {
  const head = members[0];
  if (!head || head.sendPurpose !== 'PAYOUT_TARGET') return null;
  const targets = members.filter((m) => m.sendPurpose === 'PAYOUT_TARGET');
  // Never (a payout has one token); were it to happen, no total of two tokens: the row shows its head as before.
  if (targets.some((t) => t.currency !== head.currency)) return null;
  return { units: targets.reduce((sum, t) => sum + t.amountUnits, 0n), addresses: new Set(targets.map((t) => t.toAddress)).size };
}

/** 0 for a group's transfers, 1 for its plumbing: the head is the first row by (rank, id). */
const RANK = sql`CASE WHEN t.send_purpose IN (${literals(PRINCIPAL)}) THEN 0 ELSE 1 END`;

const JOINS = sql`FROM transactions t
  LEFT JOIN transactions s ON s.id = t.source_id
  LEFT JOIN transactions l ON l.id = t.send_index AND t.send_purpose = 'ENERGY_RECLAIM'`;

/**
 * What the list shows at all (lib/transactions/service.ts, `visible`): in a final block, not a send
 * that failed, not a send for a payment whose block is not final yet.
 */
const VISIBLE = sql`t.solidified AND (t.send_state IS NULL OR t.send_state <> 'FAILED') AND (s.id IS NULL OR s.solidified)`;

/** A refund's send (docs/refunds.md): the TRANSFER of a payout that is a refund's (REFUND_SEND in service.ts). */
const REFUND_SEND = sql`(t.type = 'TRANSFER' AND t.send_purpose = 'PAYOUT_TARGET' AND EXISTS (SELECT 1 FROM refunds r WHERE r.payout_id = t.invoice_id))`;

function typeMatch(type: DashboardTransactionType): Sql {
  if (type === 'REFUND') return REFUND_SEND;
  if (type === 'TRANSFER') return sql`(t.type = 'TRANSFER' AND NOT COALESCE(${REFUND_SEND}, false))`;
  return sql`t.type::text = ${type}`;
}

/** The dashboard's filters on one row, as transactionListQuery (service.ts) writes them for Prisma. */
function rowMatches(q: Omit<ListTransactionsQuery, 'limit' | 'offset'>): Sql {
  const and: Sql[] = [sql`true`];
  if (q.type) and.push(typeMatch(q.type));
  if (q.invoice_id !== undefined) and.push(sql`t.invoice_id = ${q.invoice_id}`);
  if (q.from_address) and.push(sql`t.from_address = ${q.from_address}`);
  if (q.to_address) and.push(sql`t.to_address = ${q.to_address}`);
  if (q.trn_hash) and.push(sql`t.trn_hash = ${q.trn_hash}`);
  if (q.has_aml !== undefined) and.push(q.has_aml ? sql`t.aml_check IS NOT NULL` : sql`t.aml_check IS NULL`);
  if (q.currency) and.push(sql`t.currency::text = ${q.currency}`);
  // As seconds since the epoch: a Date parameter would be read in the session's time zone, and an
  // ISO text of the day after 9999-12-31 (+010000-01-01...) is one PostgreSQL cannot read (a 500).
  if (q.date_from) and.push(sql`t.created_at >= to_timestamp(${dayStartUtc(q.date_from).getTime() / 1000})`);
  if (q.date_to) and.push(sql`t.created_at < to_timestamp(${nextDayStartUtc(q.date_to).getTime() / 1000})`);
  if (q.search) {
    const like = `%${likeLiteral(q.search)}%`;
    const or: Sql[] = [sql`t.trn_hash ILIKE ${like}`, sql`t.from_address ILIKE ${like}`, sql`t.to_address ILIKE ${like}`];
    if (/^\d{1,9}$/.test(q.search)) or.push(sql`t.invoice_id = ${Number(q.search)}`);
    const upper = q.search.toUpperCase();
    if ((Object.values(TransactionType) as string[]).includes(upper)) or.push(sql`t.type::text = ${upper}`);
    if (upper === 'REFUND') or.push(REFUND_SEND);
    if ((CURRENCIES as readonly string[]).includes(upper)) or.push(sql`t.currency::text = ${upper}`);
    and.push(sql`(${join(or, ' OR ')})`);
  }
  return join(and, ' AND ');
}

function headOrder(ordering: string): Sql {
  const direction = ordering.startsWith('-') ? sql`DESC` : sql`ASC`;
  const field = ordering.replace(/^-/, '');
  // As the flat list orders its rows (service.ts), on each group's head; by amount, on the amount its
  // row shows: a payout's the total of its targets (payoutTotalOf, `targets_units`), any other the head's.
  if (field === 'amount') return sql`CASE WHEN h.send_purpose = 'PAYOUT_TARGET' THEN h.targets_units ELSE h.amount_units END ${direction}, h.id ${direction}`;
  if (field === 'status') return sql`h.send_state ${direction}, h.payment_state ${direction}, h.id ${direction}`;
  return sql`h.created_at ${direction}, h.id ${direction}`;
}

/**
 * One page of the merchant's groups (docs/dashboard.md, "Transactions, grouped"): the groups with at
 * least one row the filters match (a search for a lending's hash finds the forward it was for), in the
 * list's order of their heads; `count` counts groups. Returns the heads; dashboardTransactionRows
 * (releases.ts) adds each head's plumbing.
 */
export async function listTransactionGroups(prisma: PrismaClient, merchantId: number, q: Omit<ListTransactionsQuery, 'limit' | 'offset'>, page: Page): Promise<{ count: number; rows: Transaction[] }> {
  // The total of each group's payout targets, summed only when the list is ordered by amount (the one ordering that reads it).
  const targetsUnits = q.ordering.replace(/^-/, '') === 'amount'
    ? sql`sum(v.amount_units) FILTER (WHERE v.send_purpose = 'PAYOUT_TARGET') OVER (PARTITION BY v.gkey)`
    : sql`NULL::numeric`;
  const found = await queryRows<{ total: bigint; id: number | null }>(prisma, sql`
    WITH v AS (
      SELECT t.id, t.created_at, t.amount_units, t.send_state, t.payment_state, t.send_purpose, ${GROUP_KEY} AS gkey, ${RANK} AS rank, (${rowMatches(q)}) AS hit
      ${JOINS}
      WHERE t.merchant_id = ${merchantId} AND ${VISIBLE}
    ), heads AS (
      SELECT DISTINCT ON (v.gkey) v.*, ${targetsUnits} AS targets_units FROM v WHERE v.gkey IN (SELECT gkey FROM v WHERE hit) ORDER BY v.gkey, v.rank, v.id
    )
    SELECT c.total, p.id FROM (SELECT count(*) AS total FROM heads) c
    LEFT JOIN LATERAL (SELECT h.id FROM heads h ORDER BY ${headOrder(q.ordering)} LIMIT ${page.limit} OFFSET ${page.offset}) p ON true`);
  const ids = found.flatMap((r) => (r.id === null ? [] : [r.id]));
  const rows = ids.length ? await prisma.transaction.findMany({ where: { id: { in: ids } } }) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { count: Number(found[0]?.total ?? 0n), rows: ids.map((id) => byId.get(id)!) };
}

/** Each of `rows`' groups: the group's visible rows, head first, and each row's group key. */
export interface Groups {
  keyOf: Map<number, string>;
  members: Map<string, Transaction[]>;
}

/**
 * The groups `rows` belong to, with all their visible rows (a group's rows share its anchor, so only
 * the rows' anchors' sends are read, not the merchant's whole history).
 */
export async function groupsOf(prisma: PrismaClient, rows: Transaction[]): Promise<Groups> {
  if (rows.length === 0) return { keyOf: new Map(), members: new Map() };
  const ids = rows.map((r) => r.id);
  const anchors = [...new Set(rows.flatMap((r) => (r.sourceId === null ? [] : [r.sourceId])))];
  const merchants = [...new Set(rows.flatMap((r) => (r.merchantId === null ? [] : [r.merchantId])))];
  const keyed = await queryRows<{ id: number; gkey: string; rank: number }>(prisma, sql`
    SELECT t.id, ${GROUP_KEY} AS gkey, ${RANK} AS rank
    ${JOINS}
    WHERE (t.id = ANY(${ids}::int[]) OR t.source_id = ANY(${anchors}::int[]))
      AND t.merchant_id = ANY(${merchants}::int[]) AND ${VISIBLE}`);
  const known = new Map(rows.map((r) => [r.id, r]));
  const missing = keyed.filter((k) => !known.has(k.id)).map((k) => k.id);
  for (const r of missing.length ? await prisma.transaction.findMany({ where: { id: { in: missing } } }) : []) known.set(r.id, r);
  const asked = new Set(ids);
  const wanted = new Set(keyed.filter((k) => asked.has(k.id)).map((k) => k.gkey));
  const keyOf = new Map(keyed.map((k) => [k.id, k.gkey]));
  const members = new Map<string, Transaction[]>();
  for (const k of [...keyed].sort((a, b) => a.rank - b.rank || a.id - b.id)) {
    if (!wanted.has(k.gkey)) continue;
    members.set(k.gkey, [...(members.get(k.gkey) ?? []), known.get(k.id)!]);
  }
  // A row the list passed in that is not visible (never, from the list): a group of its own.
  for (const r of rows) {
    if (!keyOf.has(r.id)) {
      keyOf.set(r.id, `own:${r.id}`);
      members.set(`own:${r.id}`, [r]);
    }
  }
  return { keyOf, members };
}
