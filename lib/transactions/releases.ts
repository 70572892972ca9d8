import { NETWORKS } from '@/lib/chain/networks';
import { chainConfig } from '@/lib/config';
import type { PrismaClient, Transaction } from '@/lib/generated/prisma/client';
import type { DashboardTransactionJson } from './schemas';
import { transactionJson } from './serialize';

/**
 * What became of held funds a merchant released (issue 38, item 3): forwarded to their wallet or
 * returned to an address they named, in progress or done, and the transfer that moved them. The
 * dashboard shows it on the payment's row, where the HELD badge was, so a release has a visible
 * outcome and a link to what was sent.
 */
export interface ReleaseJson {
  action: 'FORWARD' | 'REFUND';
  /** Where the funds go: the address named for a return; for a forward the wallet it was sent to, null before it is sent. */
  to_address: string | null;
  /** What it came to: the payment's own outcome (a forward released unscreened may be returned by the AML rules). */
  state: 'IN_PROGRESS' | 'FORWARDED' | 'RETURNED' | 'FAILED';
  /** The transfer that moved them, once final. */
  sent: { trn_hash: string; explorer_url: string | null } | null;
}

/** The dashboard's transaction row: the transaction, and for a payment a merchant released, what became of it. */
export type DashboardTransactionRow = DashboardTransactionJson & { release: ReleaseJson | null };

export async function dashboardTransactionRows(prisma: PrismaClient, rows: Transaction[]): Promise<DashboardTransactionRow[]> {
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
  return rows.map((r) => {
    if (!released.includes(r)) return { ...transactionJson(r), release: null };
    const sent = sends.find((s) => s.sourceId === r.id) ?? null;
    const state = r.paymentState === 'FAILED' ? 'FAILED' : r.paymentState === 'REFUNDED' ? 'RETURNED' : r.paymentState === 'SETTLED' ? 'FORWARDED' : 'IN_PROGRESS';
    return {
      ...transactionJson(r),
      release: {
        action: r.releaseAction === 'REFUND' ? 'REFUND' : 'FORWARD',
        to_address: sent?.toAddress ?? r.releaseAddress ?? null,
        state,
        sent: sent ? { trn_hash: sent.trnHash, explorer_url: explorerTx ? `${explorerTx}${sent.trnHash}` : null } : null,
      },
    };
  });
}
