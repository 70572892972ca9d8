'use client';

import type { DeliveryJson } from '@/lib/webhooks/serialize';
import { DeliveryTable } from './DeliveryTable';
import { Pager } from './Pager';
import { useFilteredList } from './useFilteredList';
import { Card, FieldError, Select } from './ui';


/** `invoiceId` narrows the log to one invoice (linked from the invoice page). */
export function DeliveryLog({ invoiceId }: { invoiceId?: string }) {
  const { filters, set, pager, data, error } = useFilteredList<DeliveryJson, Record<string, string | undefined>>('deliveries', '/webhooks', { status: '', invoice_id: invoiceId }, 10_000);

  return (
    <Card title={invoiceId ? `Delivery log of invoice #${invoiceId}` : 'Delivery log'}>
      <div className="mb-4 max-w-xs">
        <Select
          label="Status"
          name="status"
          value={filters.status}
          onChange={set('status')}
        >
          <option value="">Any</option>
          {['PENDING', 'SENDING', 'DELIVERED', 'FAILED'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </Select>
      </div>
      <FieldError messages={error ? [error.message] : undefined} />
      <DeliveryTable rows={data?.results ?? []} label="Webhook deliveries" />
      {data && <Pager count={data.count} {...pager} />}
    </Card>
  );
}
