'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import type { DeliveryJson } from '@/lib/webhooks/serialize';
import { dashboardApi } from './api';
import { StatusBadge } from './StatusBadge';
import { Button, FieldError, formatTime, tableClass } from './ui';

/** Webhook deliveries with their outcome; "Resend" queues a copy for the worker to send. */
export function DeliveryTable({ rows, label }: { rows: DeliveryJson[]; label: string }) {
  const client = useQueryClient();
  const resend = useMutation({
    mutationFn: (id: number) => dashboardApi<DeliveryJson>(`/webhooks/${id}/resend`, { method: 'POST' }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['deliveries'] }), client.invalidateQueries({ queryKey: ['invoice'] })]),
  });
  return (
    <div className="overflow-x-auto">
      <table className={tableClass} aria-label={label}>
        <thead>
          <tr>
            <th>ID</th>
            <th>Invoice</th>
            <th>Status</th>
            <th>HTTP</th>
            <th>Latency</th>
            <th>URL</th>
            <th>Queued</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id}>
              <td>
                {d.id}
                {d.resend_of && <span className="text-xs text-slate-500"> (resend of {d.resend_of})</span>}
                {d.retry_of && (
                  <span className="block text-xs text-slate-500">
                    attempt {d.attempt}, retry of {d.retry_of}
                  </span>
                )}
              </td>
              <td>
                <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${d.invoice}`}>
                  #{d.invoice}
                </Link>
              </td>
              <td>
                <StatusBadge status={d.status} kind="delivery" />
                {d.error && <span className="block min-w-[12rem] whitespace-normal text-xs text-red-600 dark:text-red-400">{d.error}</span>}
                {d.status === 'PENDING' && d.not_before && <span className="block text-xs text-slate-500">not before {formatTime(d.not_before)}</span>}
              </td>
              <td>{d.response_status ?? '—'}</td>
              <td>{d.latency_ms === null ? '—' : `${d.latency_ms} ms`}</td>
              <td>
                <code title={d.url} className="block max-w-[16rem] truncate font-mono text-xs">
                  {d.url}
                </code>
              </td>
              <td>{formatTime(d.created_at)}</td>
              <td>
                <Button variant="secondary" aria-label={`Resend delivery ${d.id}`} disabled={resend.isPending} onClick={() => resend.mutate(d.id)}>
                  Resend
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p className="text-sm text-slate-500">No webhook deliveries.</p>}
      <FieldError messages={resend.error ? [resend.error.message] : undefined} />
    </div>
  );
}
