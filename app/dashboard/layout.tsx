import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { Nav } from '@/components/dashboard/Nav';
import { db } from '@/lib/db/client';
import { formatTime } from '@/components/dashboard/ui';
import { QueryProvider } from '@/components/QueryProvider';
import { currentSession } from '@/lib/auth/session';
import { lockedOutUntilTwoFactor } from '@/lib/auth/storeTwoFactor';
import { TwoFactorRequiredNotice } from '@/components/dashboard/TwoFactorRequiredNotice';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Dashboard · Tron Invoicing' };

// How long the "payout wallet was changed" notice stays on every dashboard page.
const WALLET_NOTICE_MS = 7 * 24 * 60 * 60 * 1000;

/** Whether the wallet change is recent enough to show; read per request (the layout is dynamic). */
function walletChangeIsRecent(changedAt: Date): boolean {
  return Date.now() - changedAt.getTime() < WALLET_NOTICE_MS;
}

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  if (!session) redirect('/signin');
  const { merchant, user, role } = session;
  // The stores of the user, for the header's selector (shown with two or more).
  const memberships = await db().membership.findMany({ where: { userId: user.id }, include: { merchant: { select: { id: true, email: true, storeName: true } } }, orderBy: { createdAt: 'asc' } });
  const stores = memberships.map((m) => ({ id: m.merchant.id, name: m.merchant.storeName ?? m.merchant.email, role: m.role }));
  const changedAt = merchant.targetWalletChangedAt;
  const notice = changedAt !== null && walletChangeIsRecent(changedAt);
  return (
    <QueryProvider>
      <Nav email={user.email} stores={stores} storeId={merchant.id} role={role} />
      {lockedOutUntilTwoFactor(merchant, user) && <TwoFactorRequiredNotice />}
      {notice && (
        <div role="alert" className="mx-auto mt-4 max-w-6xl rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
          Your payout wallet was changed on {formatTime(changedAt)} to{' '}
          <span className="font-mono break-all">{merchant.targetWalletAddress ?? '(none)'}</span>. If this was not you, set it back in Settings and change
          your password: that signs out every session.
        </div>
      )}
      <main className="mx-auto max-w-6xl space-y-6 px-4 py-6">{children}</main>
    </QueryProvider>
  );
}
