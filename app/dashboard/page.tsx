import Link from 'next/link';
import { redirect } from 'next/navigation';
import { Balances } from '@/components/dashboard/Balances';
import { Card } from '@/components/dashboard/ui';
import { VolumeChart } from '@/components/dashboard/VolumeChart';
import { sessionMerchant } from '@/lib/auth/session';
import { db } from '@/lib/db/client';
import { CURRENCIES } from '@/lib/money/tokens';
import { receivedVolumeByDay } from '@/lib/transactions/volume';

const CHART_DAYS = 30;

export default async function OverviewPage() {
  const merchant = await sessionMerchant();
  if (!merchant) redirect('/signin');
  const volume = await receivedVolumeByDay(db(), merchant.id, CHART_DAYS);
  return (
    <>
      <h1 className="text-2xl font-semibold">Overview</h1>
      {!merchant.targetWalletAddress && (
        <p role="note" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950">
          Set a target wallet in <Link className="underline" href="/dashboard/settings">Settings</Link> before creating invoices.
        </p>
      )}
      <Balances merchant={merchant} />
      <Card title={`Received per day (last ${CHART_DAYS} days, UTC)`}>
        <VolumeChart series={volume} currencies={CURRENCIES} />
      </Card>
    </>
  );
}
