'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import type { DeliveryDetailJson, DeliveryJson } from '@/lib/webhooks/serialize';
import { dashboardApi } from './api';
import { INVOICE_STATUS_LABELS, labelOf } from './labels';
import { StatusBadge } from './StatusBadge';
import { Button, FieldError, TableBox, formatTime, tableClass } from './ui';

/**
 * What one delivery sent and got back (issue 26): the body exactly as posted (pretty-printed) and
 * the receiver's status code with the start of its answer. Loaded when opened; shown under the
 * table at the card's width (inside a table that scrolls sideways it would sit off screen on a
 * phone) and scrolled to.
 */
function DeliveryDetail({ id, panelId, onClose }: { id: number; panelId: string; onClose: () => void }) {
  const { data, error } = useQuery({ queryKey: ['delivery', id], queryFn: () => dashboardApi<DeliveryDetailJson>(`/webhooks/${id}`) });
  const panel = useRef<HTMLElement>(null);
  // A block, not an expression: the effect must return nothing (newer browsers' scrollIntoView returns a promise, which React would call as the cleanup).
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
  }, [id]);
  return (
    <section ref={panel} id={panelId} aria-label={`Delivery ${id}`} className="mt-4 rounded-md border border-slate-200 p-4 dark:border-slate-800" data-testid={`delivery-detail-${id}`}>
      <div className="mb-3 flex items-center justify-between gap-4">
        <h3 className="font-semibold">Delivery {id}</h3>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      {error ? <FieldError messages={[error.message]} /> : !data ? <p className="text-sm">Loading…</p> : <DeliveryExchange id={id} data={data} />}
    </section>
  );
}

function DeliveryExchange({ id, data }: { id: number; data: DeliveryDetailJson }) {
  const answered = data.response_status !== null;
  return (
    // min-w-0: a grid cell would otherwise grow to its longest line; the <pre> scrolls inside it instead.
    <div className="grid gap-4 lg:grid-cols-2 [&>div]:min-w-0">
      <div>
        <h4 className="text-sm font-semibold">Payload sent</h4>
        <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">
          webhook-id <code className="font-mono">{data.webhook_id}</code>
        </p>
        <pre role="region" tabIndex={0} aria-label={`Payload of delivery ${id}`} className="max-h-80 overflow-auto rounded bg-slate-100 p-3 font-mono text-xs text-slate-900 dark:bg-slate-900 dark:text-slate-100">
          {JSON.stringify(data.payload, null, 2)}
        </pre>
      </div>
      <div>
        <h4 className="text-sm font-semibold">Response</h4>
        {answered ? (
          <>
            <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">HTTP {data.response_status}, first 1,000 characters of the body:</p>
            <pre role="region" tabIndex={0} aria-label={`Response to delivery ${id}`} className="max-h-80 overflow-auto rounded bg-slate-100 p-3 font-mono text-xs text-slate-900 dark:bg-slate-900 dark:text-slate-100">
              {data.response_body || '(empty body)'}
            </pre>
          </>
        ) : (
          <p className="text-sm">{data.status === 'PENDING' || data.status === 'SENDING' ? 'Not answered yet.' : `No answer${data.error ? `: ${data.error}` : '.'}`}</p>
        )}
      </div>
    </div>
  );
}

const OPT_IN_EVENTS: Record<string, string> = {
  'payment.held': 'Payment held',
  'refund.created': 'Refund created',
  'refund.claimed': 'Refund address entered',
  'refund.sent': 'Refund sent',
  'refund.failed': 'Refund failed',
};

/** What a delivery was about, in words: the invoice status it reported, a static address's payment, a held payment or a refund. */
function eventLabel(d: DeliveryJson): string {
  if (d.event !== 'invoice') return OPT_IN_EVENTS[d.event] ?? d.event;
  if (d.invoice_status === 'ACTIVE') return 'Payment received';
  return d.invoice_status ? `Invoice ${labelOf(INVOICE_STATUS_LABELS, d.invoice_status).toLowerCase()}` : 'Invoice';
}

/** Webhook deliveries with their outcome; "View" shows what was sent and answered, "Resend" queues a copy for the worker to send. */
export function DeliveryTable({ rows, label }: { rows: DeliveryJson[]; label: string }) {
  const client = useQueryClient();
  const [open, setOpen] = useState<number | null>(null);
  // The opened delivery's panel, named after this table (two logs may share a page).
  const panelId = (id: number) => `${label.toLowerCase().replace(/\W+/g, '-')}-delivery-${id}`;
  const resend = useMutation({
    mutationFn: (id: number) => dashboardApi<DeliveryJson>(`/webhooks/${id}/resend`, { method: 'POST' }),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['deliveries'] }), client.invalidateQueries({ queryKey: ['invoice'] })]),
  });
  return (
    <>
      <TableBox label={label}>
        <table className={tableClass} aria-label={label}>
          <thead>
            <tr>
              <th>ID</th>
              <th>Invoice</th>
              <th>Event</th>
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
                  {d.resend_of && <span className="text-xs text-slate-600 dark:text-slate-400"> (resend of {d.resend_of})</span>}
                  {d.retry_of && (
                    <span className="block text-xs text-slate-600 dark:text-slate-400">
                      attempt {d.attempt}, retry of {d.retry_of}
                    </span>
                  )}
                </td>
                <td>
                  <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${d.invoice}`}>
                    #{d.invoice}
                  </Link>
                </td>
                <td data-testid="delivery-event">{eventLabel(d)}</td>
                <td>
                  <StatusBadge status={d.status} kind="delivery" />
                  {d.error && <span className="block min-w-[12rem] whitespace-normal text-xs text-red-700 dark:text-red-400">{d.error}</span>}
                  {d.status === 'PENDING' && d.not_before && <span className="block text-xs text-slate-600 dark:text-slate-400">not before {formatTime(d.not_before)}</span>}
                </td>
                <td>{d.response_status ?? '—'}</td>
                <td>{d.latency_ms === null ? '—' : `${d.latency_ms} ms`}</td>
                <td>
                  <code title={d.url} className="block max-w-[16rem] truncate font-mono text-xs">
                    {d.url}
                  </code>
                </td>
                <td>{formatTime(d.created_at)}</td>
                <td className="space-x-2">
                  <Button variant="secondary" aria-expanded={open === d.id} aria-controls={panelId(d.id)} onClick={() => setOpen(open === d.id ? null : d.id)}>
                    {open === d.id ? 'Hide' : 'View'}
                    <span className="sr-only"> delivery {d.id}</span>
                  </Button>
                  <Button variant="secondary" aria-label={`Resend delivery ${d.id}`} disabled={resend.isPending} onClick={() => resend.mutate(d.id)}>
                    Resend
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
      {rows.length === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">No webhook deliveries.</p>}
      {open !== null && rows.some((d) => d.id === open) && <DeliveryDetail id={open} panelId={panelId(open)} onClose={() => setOpen(null)} />}
      <FieldError messages={resend.error ? [resend.error.message] : undefined} />
    </>
  );
}
