'use client';

import type { DeliveryJson } from '@/lib/webhooks/serialize';
import { DeliveryTable } from './DeliveryTable';
import { Pager } from './Pager';
import { useFilteredList } from './useFilteredList';
import { DELIVERY_STATUS_LABELS } from './labels';
import { AnyOf, Card, FieldError, Select } from './ui';


/** `?invoice_id=` in the URL (linked from the invoice page) narrows the log to one invoice; `invoiceId` names it in the title. */
export function DeliveryLog({ invoiceId }: { invoiceId?: string }) {
  const { filters, set, pager, data, error } = useFilteredList<DeliveryJson, Record<string, string | undefined>>('deliveries', '/webhooks', { status: '', invoice_id: '' }, 10_000);

  return (
    <Card title={invoiceId ? `Delivery log of invoice #${invoiceId}` : 'Delivery log'}>
      <div className="mb-4 max-w-xs">
        <Select
          label="Status"
          name="status"
          value={filters.status}
          onChange={set('status')}
        >
          <AnyOf values={Object.keys(DELIVERY_STATUS_LABELS)} labels={DELIVERY_STATUS_LABELS} />
        </Select>
      </div>
      <FieldError messages={error ? [error.message] : undefined} />
      <DeliveryTable rows={data?.results ?? []} label="Webhook deliveries" />
      {data && <Pager count={data.count} {...pager} />}
    </Card>
  );
}
