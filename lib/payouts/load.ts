import type { Invoice, InvoiceCurrency, PayoutTarget as TargetRow } from '@/lib/generated/prisma/client';
import { tokenUnits } from '@/lib/money/tokens';
import type { WorkerContext } from '@/lib/worker/context';
import { type PayoutTarget } from './schemas';
import { parseStoredTargets } from '@/lib/invoices/storedTargets';

export type Payout = Invoice & { amounts: InvoiceCurrency[]; payoutTargets: TargetRow[] };

/** The targets as submitted (target_wallets), in base units. */
export const targetsOf = (p: Invoice): PayoutTarget[] => parseStoredTargets(p.targetWallets).map((t) => ({ address: t.address, units: tokenUnits(t.amount) }));

/** A payout with its target rows; rows missing (a payout created before they were written at creation) are written first. */
export async function loadPayout(ctx: WorkerContext, id: number): Promise<Payout> {
  const load = () => ctx.prisma.invoice.findUniqueOrThrow({ where: { id }, include: { amounts: true, payoutTargets: { orderBy: { index: 'asc' } } } });
  const payout = await load();
  const targets = targetsOf(payout);
  if (payout.payoutTargets.length === targets.length) return payout;
  await ctx.prisma.payoutTarget.createMany({ data: targets.map((t, index) => ({ invoiceId: id, index, address: t.address, amountUnits: t.units })), skipDuplicates: true });
  return load();
}
