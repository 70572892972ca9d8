import { NETWORKS } from '@/lib/networks';
import { chainConfig } from '@/lib/config';
import type { PrismaClient, SendPurpose, Transaction } from '@/lib/generated/prisma/client';
import { tokenAmountJson } from '@/lib/money/tokens';
import { familyKey, familyOf, groupsOf, payoutTotalOf, type Groups } from './groups';
import { notFound } from '@/lib/errors';
import type { Page } from '@/lib/schemas/page';
import type { DashboardTransactionJson, HeldPaymentJson, ListHeldPaymentsQuery, ReleaseJson } from './schemas';
import { heldReasonCode } from './heldReason';
import { apiTransactionJson, transactionJson } from './serialize';

/*
 * What became of held funds a merchant released (issue 38, item 3): forwarded to their wallet or
 * returned to an address they named, in progress or done, and the transfer that moved them. The
 * dashboard shows it on the payment's row, where the HELD badge was, so a release has a visible
 * outcome and a link to what was sent; the merchant API answers it on its held payments (issue 36).
 */
export type { ReleaseJson };

/** One row as the dashboard shows it: the transaction, what became of a released payment, a refund's send as REFUND (issue 36). */
export type DashboardTransactionPart = DashboardTransactionJson & {
  release: ReleaseJson | null;
  refund: { id: number; invoice: number } | null;
  /** Which step of ours a send is (FORWARD_GAS, FORWARD_ENERGY, ENERGY_RECLAIM, ...); null for what arrived. */
  send_purpose: SendPurpose | null;
  /** What the network cost this row, in TRX: burned TRX and rented energy (0 for what arrived). */
  network_cost_trx: number;
};

/**
 * The dashboard's transaction row (issue 38, item 4): a row with its group. `part_of` is the hash of
 * the row its group is listed under (null when this is that row); the head carries the group's other
 * rows (`plumbing`: gas, energy and bandwidth lent and taken back) and the group's network cost,
 * `group_network_cost_trx`, the exact sum of every row's `network_cost_trx` in it. A payout's head
 * also says what the payout moved: `group_amount`, the exact sum of its target transfers listed in the
 * group (in the row's `currency`, the payout's token), and `group_targets`, how many addresses they
 * went to; both null on every other row (a refund's send too: it is one transfer, its `amount`).
 */
export type DashboardTransactionRow = DashboardTransactionPart & {
  part_of: string | null;
  group_network_cost_trx: number;
  group_amount: number | null;
  group_targets: number | null;
  plumbing: DashboardTransactionPart[];
};

export async function dashboardTransactionRows(prisma: PrismaClient, rows: Transaction[]): Promise<DashboardTransactionRow[]> {
  const groups = await groupsOf(prisma, rows);
  const all = [...new Map([...rows, ...[...groups.members.values()].flat()].map((r) => [r.id, r])).values()];
  const [releases, refunds, costs] = await Promise.all([releasesOf(prisma, all), refundsSentBy(prisma, all), networkCostsOf(prisma, all, groups)]);
  const part = (r: Transaction): DashboardTransactionPart => {
    const refund = refunds.get(r.id) ?? null;
    return { ...transactionJson(r), ...(refund && { type: 'REFUND' as const }), release: releases.get(r.id) ?? null, refund, send_purpose: r.sendPurpose, network_cost_trx: tokenAmountJson(costs.get(r.id) ?? 0n) };
  };
  return rows.map((r) => {
    const members = groups.members.get(groups.keyOf.get(r.id)!) ?? [r];
    const head = members[0]!;
    // Summed in sun, converted once: the group's cost is exactly its rows' costs.
    const total = members.reduce((sum, m) => sum + (costs.get(m.id) ?? 0n), 0n);
    const payout = head.id === r.id && !refunds.has(r.id) ? payoutTotalOf(members) : null;
    return {
      ...part(r),
      part_of: head.id === r.id ? null : head.trnHash,
      group_network_cost_trx: tokenAmountJson(total),
      group_amount: payout && tokenAmountJson(payout.units),
      group_targets: payout && payout.addresses,
      plumbing: head.id === r.id ? members.slice(1).map(part) : [],
    };
  });
}

/**
 * What the network cost each row (sun): the TRX a send burned (fee_sun, booked as NETWORK_COST), and on
 * a group's head the energy rented for its transfers (energy_rentals of its anchor and family, every
 * attempt: the ledger's ENERGY_RENTAL rows). Rows that arrived cost the service nothing.
 */
async function networkCostsOf(prisma: PrismaClient, rows: Transaction[], groups: Groups): Promise<Map<number, bigint>> {
  const costs = new Map(rows.map((r) => [r.id, r.sendPurpose === null ? 0n : (r.feeSun ?? 0n)]));
  const anchors = [...new Set(rows.flatMap((r) => (r.sourceId === null ? [] : [r.sourceId])))];
  const rentals = anchors.length ? await prisma.energyRental.groupBy({ by: ['paymentId', 'purpose'], where: { paymentId: { in: anchors } }, _sum: { priceSun: true } }) : [];
  for (const g of rentals) {
    const name = familyOf(g.purpose);
    const head = name && groups.members.get(familyKey(g.paymentId, name))?.[0];
    if (head) costs.set(head.id, (costs.get(head.id) ?? 0n) + (g._sum.priceSun ?? 0n));
  }
  return costs;
}

/**
 * The rows that are a refund's send (docs/refunds.md): the TRANSFER of a payout that is a refund's,
 * by the row's id, with the refund and the invoice it refunds. The API answers them as TRANSFER.
 */
async function refundsSentBy(prisma: PrismaClient, rows: Transaction[]): Promise<Map<number, { id: number; invoice: number }>> {
  const sends = rows.filter((r) => r.type === 'TRANSFER' && r.sendPurpose === 'PAYOUT_TARGET' && r.invoiceId !== null);
  if (sends.length === 0) return new Map();
  const refunds = await prisma.refund.findMany({ where: { payoutId: { in: sends.map((r) => r.invoiceId!) } }, select: { id: true, invoiceId: true, payoutId: true } });
  const byPayout = new Map(refunds.map((f) => [f.payoutId!, { id: f.id, invoice: f.invoiceId }]));
  return new Map(sends.flatMap((r) => (byPayout.has(r.invoiceId!) ? [[r.id, byPayout.get(r.invoiceId!)!] as const] : [])));
}

/** Each released payment's outcome, by the payment's id; rows that are no released payment have none. */
async function releasesOf(prisma: PrismaClient, rows: Transaction[]): Promise<Map<number, ReleaseJson>> {
  // Held again after a release (the rules found a new reason): the row offers the release again, not an outcome.
  const released = rows.filter((r) => r.type === 'PAYMENT' && r.releaseAction !== null && r.paymentState !== 'HELD');
  const sends = released.length
    ? await prisma.transaction.findMany({
        where: { sourceId: { in: released.map((r) => r.id) }, sendPurpose: { in: ['FORWARD', 'REFUND'] }, sendState: 'CONFIRMED' },
        select: { sourceId: true, trnHash: true, toAddress: true },
        orderBy: { id: 'desc' },
      })
    : [];
  const explorerTx = NETWORKS[chainConfig().network].explorerTx;
  return new Map(
    released.map((r) => {
      const sent = sends.find((s) => s.sourceId === r.id) ?? null;
      const state = r.paymentState === 'FAILED' ? 'FAILED' : r.paymentState === 'REFUNDED' ? 'RETURNED' : r.paymentState === 'SETTLED' ? 'FORWARDED' : 'IN_PROGRESS';
      const release: ReleaseJson = {
        action: r.releaseAction === 'REFUND' ? 'REFUND' : 'FORWARD',
        to_address: sent?.toAddress ?? r.releaseAddress ?? null,
        state,
        sent: sent ? { trn_hash: sent.trnHash, explorer_url: explorerTx ? `${explorerTx}${sent.trnHash}` : null } : null,
      };
      return [r.id, release];
    }),
  );
}

export const HELD_PAYMENT_NOT_FOUND = 'No held payment with this hash.';

/** The merchant's payments held now (GET /v1/api/held_payment/list), newest first. */
export async function listHeldPayments(prisma: PrismaClient, merchantId: number, filter: Omit<ListHeldPaymentsQuery, 'limit' | 'offset'>, page: Page): Promise<{ count: number; rows: HeldPaymentJson[] }> {
  const where = { merchantId, type: 'PAYMENT' as const, paymentState: 'HELD' as const, ...(filter.invoice_id !== undefined && { invoiceId: filter.invoice_id }), ...(filter.currency && { currency: filter.currency }) };
  const [count, rows] = await Promise.all([
    prisma.transaction.count({ where }),
    prisma.transaction.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.limit }),
  ]);
  return { count, rows: await heldPaymentRows(prisma, rows) };
}

/**
 * One of the merchant's payments by its hash (GET /v1/api/held_payment/{trn_hash}), while it is held
 * and once it was released, so an integrator can follow a release to its end; any other hash is a 404.
 */
export async function getHeldPayment(prisma: PrismaClient, merchantId: number, trnHash: string): Promise<HeldPaymentJson> {
  const row = await prisma.transaction.findFirst({
    where: { merchantId, trnHash, type: 'PAYMENT', OR: [{ paymentState: 'HELD' }, { releaseAction: { not: null } }] },
    orderBy: { id: 'desc' },
  });
  if (!row) throw notFound(HELD_PAYMENT_NOT_FOUND);
  return (await heldPaymentRows(prisma, [row]))[0]!;
}

async function heldPaymentRows(prisma: PrismaClient, rows: Transaction[]): Promise<HeldPaymentJson[]> {
  const releases = await releasesOf(prisma, rows);
  return rows.map((r) => ({ ...apiTransactionJson(r), held_reason: r.paymentState === 'HELD' ? heldReasonCode(r.heldReason) : null, release: releases.get(r.id) ?? null }));
}
