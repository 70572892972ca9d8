import { NETWORKS } from '@/lib/networks';
import { chainConfig } from '@/lib/config';
import type { PrismaClient, Transaction } from '@/lib/generated/prisma/client';
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

/**
 * The dashboard's transaction row: the transaction, for a payment a merchant released what became
 * of it, and for a refund's send (type REFUND, issue 36) the refund and the invoice it refunds.
 */
export type DashboardTransactionRow = DashboardTransactionJson & { release: ReleaseJson | null; refund: { id: number; invoice: number } | null };

export async function dashboardTransactionRows(prisma: PrismaClient, rows: Transaction[]): Promise<DashboardTransactionRow[]> {
  const [releases, refunds] = await Promise.all([releasesOf(prisma, rows), refundsSentBy(prisma, rows)]);
  return rows.map((r) => {
    const refund = refunds.get(r.id) ?? null;
    return { ...transactionJson(r), ...(refund && { type: 'REFUND' as const }), release: releases.get(r.id) ?? null, refund };
  });
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
