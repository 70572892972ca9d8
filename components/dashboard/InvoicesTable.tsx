'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { PageEnvelope } from '@/lib/http/pagination';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import { dashboardApi, queryString } from './api';
import { Pager } from './Pager';
import { StatusBadge } from './StatusBadge';
import { Card, Field, FieldError, Mono, Select, formatTime, tableClass } from './ui';

const STATUSES = ['ACTIVE', 'COMPLETED', 'CANCELED', 'TIMEOUT', 'ERROR', 'AML_FAILED', 'OVERPAID', 'UNDERPAID'];
const PAGE = 20;

/** The API's /payment/list filters, applied as they change. */
export function InvoicesTable() {
  const [filters, setFilters] = useState({ type: '', status: '', currency: '', date_from: '', date_to: '', search: '', ordering: '-created_at' });
  const [offset, setOffset] = useState(0);
  const set = (name: keyof typeof filters) => (e: { target: { value: string } }) => {
    setFilters({ ...filters, [name]: e.target.value });
    setOffset(0);
  };
  const qs = queryString({ ...filters, limit: PAGE, offset });
  const { data, error, isFetching } = useQuery({
    queryKey: ['invoices', qs],
    queryFn: () => dashboardApi<PageEnvelope<InvoiceJson>>(`/invoices${qs}`),
    placeholderData: keepPreviousData,
  });

  return (
    <Card title="Invoices" actions={isFetching ? <span className="text-sm text-slate-500">Loading…</span> : null}>
      <div className="mb-4 grid gap-3 sm:grid-cols-3 lg:grid-cols-7">
        <Field label="Search" name="search" type="search" value={filters.search} onChange={set('search')} placeholder="id, address, text" />
        <Select label="Type" name="type" value={filters.type} onChange={set('type')}>
          <option value="">Any</option>
          <option>SINGLE</option>
          <option>MULTIPLE</option>
          <option>MULTIPLE_TRANSFER</option>
        </Select>
        <Select label="Status" name="status" value={filters.status} onChange={set('status')}>
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </Select>
        <Select label="Currency" name="currency" value={filters.currency} onChange={set('currency')}>
          <option value="">Any</option>
          <option>TRX</option>
          <option>USDT</option>
          <option value="TRX,USDT">TRX and USDT</option>
        </Select>
        <Field label="From" name="date_from" type="date" value={filters.date_from} onChange={set('date_from')} />
        <Field label="To" name="date_to" type="date" value={filters.date_to} onChange={set('date_to')} />
        <Select label="Order by" name="ordering" value={filters.ordering} onChange={set('ordering')}>
          <option value="-created_at">Newest first</option>
          <option value="created_at">Oldest first</option>
          <option value="-amount">Amount, high to low</option>
          <option value="amount">Amount, low to high</option>
          <option value="status">Status</option>
          <option value="-status">Status, reversed</option>
        </Select>
      </div>
      <FieldError messages={error ? [error.message] : undefined} />
      <div className="overflow-x-auto">
        <table className={tableClass} aria-label="Invoices">
          <thead>
            <tr>
              <th>ID</th>
              <th>Status</th>
              <th>Type</th>
              <th>Amount (USD)</th>
              <th>Tokens</th>
              <th>Order</th>
              <th>Address</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {data?.results.map((inv) => (
              <tr key={inv.id}>
                <td>
                  <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${inv.id}`}>
                    #{inv.id}
                  </Link>
                </td>
                <td>
                  <StatusBadge status={inv.status} />
                </td>
                <td>{inv.type}</td>
                <td>{inv.type === 'MULTIPLE' ? 'any' : inv.amount}</td>
                <td>{inv.currencies.join(', ')}</td>
                <td>{inv.order_id ?? '—'}</td>
                <td>
                  <Mono>{inv.address}</Mono>
                </td>
                <td>{formatTime(inv.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data && <Pager count={data.count} limit={PAGE} offset={offset} onOffset={setOffset} />}
    </Card>
  );
}
