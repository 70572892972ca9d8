import type { MerchantBalance, MerchantBalanceKind, Prisma } from '@/lib/generated/prisma/client';

/**
 * The one door to a merchant's two balances (merchants.balance_sun and
 * activation_balance_sun): every change is a row of merchant_balance_entries
 * (migration 0057) written in the caller's DB transaction, the same one as its
 * cause, and the balance moves only when that row is new. A row is unique per
 * cause (the payment or send, kind and balance), so a retried booking charges
 * or credits nothing twice. `npm run reconcile` proves each balance equals the
 * sum of its rows and each row its cause (lib/reconcile/reconcileMerchants.ts).
 * test/unit/architecture.test.ts keeps every other file from writing the two columns.
 */
export async function changeMerchantBalance(
  tx: Prisma.TransactionClient,
  change: { merchantId: number; balance: MerchantBalance; kind: Exclude<MerchantBalanceKind, 'OPENING'>; deltaSun: bigint; transactionId: number },
): Promise<boolean> {
  if (change.deltaSun === 0n) return false;
  const { count } = await tx.merchantBalanceEntry.createMany({ data: [change], skipDuplicates: true });
  if (count === 0) return false;
  const column = change.balance === 'BALANCE' ? 'balanceSun' : 'activationBalanceSun';
  await tx.merchant.update({ where: { id: change.merchantId }, data: { [column]: { increment: change.deltaSun } } });
  return true;
}
