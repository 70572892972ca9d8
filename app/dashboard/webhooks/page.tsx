import { DeliveryLog } from '@/components/dashboard/DeliveryLog';

export default async function WebhooksPage({ searchParams }: { searchParams: Promise<{ invoice_id?: string }> }) {
  return (
    <>
      <h1 className="text-2xl font-semibold">Webhooks</h1>
      <DeliveryLog invoiceId={(await searchParams).invoice_id} />
    </>
  );
}
