'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PageEnvelope } from '@/lib/http/pagination';
import { dashboardApi, queryString } from './api';
import { Pager } from './Pager';
import { TransactionTable, type TransactionJson } from './TransactionTable';
import { Card, Field, FieldError, Select } from './ui';

const PAGE = 20;

export function TransactionsPanel({ invoiceId = '' }: { invoiceId?: string }) {
  const [filters, setFilters] = useState({ type: '', currency: '', invoice_id: invoiceId, has_aml: '', date_from: '', date_to: '', search: '', ordering: '-created_at' });
  const [offset, setOffset] = useState(0);
  const set = (name: keyof typeof filters) => (e: { target: { value: string } }) => {
    setFilters({ ...filters, [name]: e.target.value });
    setOffset(0);
  };
  const qs = queryString({ ...filters, limit: PAGE, offset });
  const { data, error } = useQuery({
    queryKey: ['transactions', qs],
    queryFn: () => dashboardApi<PageEnvelope<TransactionJson>>(`/transactions${qs}`),
    placeholderData: keepPreviousData,
  });

  return (
    <Card title="Transactions">
      <div className="mb-4 grid gap-3 sm:grid-cols-3 lg:grid-cols-8">
        <Field label="Hash or address" name="search" type="search" value={filters.search} onChange={set('search')} />
        <Select label="Type" name="type" value={filters.type} onChange={set('type')}>
          <option value="">Any</option>
          {['PAYMENT', 'TRANSFER', 'TOPUP', 'ACTIVATION'].map((t) => (
            <option key={t}>{t}</option>
          ))}
        </Select>
        <Select label="Currency" name="currency" value={filters.currency} onChange={set('currency')}>
          <option value="">Any</option>
          <option>TRX</option>
          <option>USDT</option>
        </Select>
        <Field label="Invoice ID" name="invoice_id" inputMode="numeric" value={filters.invoice_id} onChange={set('invoice_id')} />
        <Select label="AML check" name="has_aml" value={filters.has_aml} onChange={set('has_aml')}>
          <option value="">Any</option>
          <option value="true">Checked</option>
          <option value="false">Not checked</option>
        </Select>
        <Field label="From" name="date_from" type="date" value={filters.date_from} onChange={set('date_from')} />
        <Field label="To" name="date_to" type="date" value={filters.date_to} onChange={set('date_to')} />
        <Select label="Order by" name="ordering" value={filters.ordering} onChange={set('ordering')}>
          <option value="-created_at">Newest first</option>
          <option value="created_at">Oldest first</option>
          <option value="-amount">Amount, high to low</option>
          <option value="amount">Amount, low to high</option>
        </Select>
      </div>
      <FieldError messages={error ? [error.message] : undefined} />
      <TransactionTable rows={data?.results ?? []} label="Transactions" />
      {data && <Pager count={data.count} limit={PAGE} offset={offset} onOffset={setOffset} />}
    </Card>
  );
}
