'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PageEnvelope } from '@/lib/http/pagination';
import type { DeliveryJson } from '@/lib/webhooks/deliveryLog';
import { dashboardApi, queryString } from './api';
import { DeliveryTable } from './DeliveryTable';
import { Pager } from './Pager';
import { Card, FieldError, Select } from './ui';

const PAGE = 20;

/** `invoiceId` narrows the log to one invoice (linked from the invoice page). */
export function DeliveryLog({ invoiceId }: { invoiceId?: string }) {
  const [status, setStatus] = useState('');
  const [offset, setOffset] = useState(0);
  const qs = queryString({ status, invoice_id: invoiceId, limit: PAGE, offset });
  const { data, error } = useQuery({
    queryKey: ['deliveries', qs],
    queryFn: () => dashboardApi<PageEnvelope<DeliveryJson>>(`/webhooks${qs}`),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });

  return (
    <Card title={invoiceId ? `Delivery log of invoice #${invoiceId}` : 'Delivery log'}>
      <div className="mb-4 max-w-xs">
        <Select
          label="Status"
          name="status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            setOffset(0);
          }}
        >
          <option value="">Any</option>
          {['PENDING', 'SENDING', 'DELIVERED', 'FAILED'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </Select>
      </div>
      <FieldError messages={error ? [error.message] : undefined} />
      <DeliveryTable rows={data?.results ?? []} label="Webhook deliveries" />
      {data && <Pager count={data.count} limit={PAGE} offset={offset} onOffset={setOffset} />}
    </Card>
  );
}
