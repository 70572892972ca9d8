import { redirect } from 'next/navigation';
import { Balances } from '@/components/dashboard/Balances';
import { HeldNotice } from '@/components/dashboard/HeldNotice';
import { SetupChecklist } from '@/components/dashboard/SetupChecklist';
import { Card } from '@/components/dashboard/ui';
import { VolumeChart } from '@/components/dashboard/VolumeChart';
import { WebhookHealthNotice } from '@/components/dashboard/WebhookHealthNotice';
import { sessionMerchant } from '@/lib/auth/session';
import { db } from '@/lib/db/client';
import { setupSteps } from '@/lib/merchants/setup';
import { CURRENCIES } from '@/lib/money/tokens';
import { heldPayments } from '@/lib/transactions/held';
import { receivedVolumeByDay } from '@/lib/transactions/volume';
import { failingEndpoints } from '@/lib/webhooks/health';

const CHART_DAYS = 30;

export default async function OverviewPage() {
  const merchant = await sessionMerchant();
  if (!merchant) redirect('/signin');
  const [volume, held, failing, steps] = await Promise.all([
    receivedVolumeByDay(db(), merchant.id, CHART_DAYS),
    heldPayments(db(), merchant.id),
    failingEndpoints(db(), merchant.id),
    setupSteps(db(), merchant),
  ]);
  return (
    <>
      <h1 className="text-2xl font-semibold">Overview</h1>
      <SetupChecklist steps={steps} />
      <WebhookHealthNotice failing={failing} retries={merchant.webhookRetries} />
      <HeldNotice held={held} />
      <Balances merchant={merchant} />
      <Card title={`Received per day (last ${CHART_DAYS} days, UTC)`}>
        <VolumeChart series={volume} currencies={CURRENCIES} />
      </Card>
    </>
  );
}
