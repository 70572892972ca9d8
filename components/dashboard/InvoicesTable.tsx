'use client';

import Link from 'next/link';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import { InvoiceType } from '@/lib/generated/prisma/enums';
import { INVOICE_STATUSES } from '@/lib/invoices/states';
import { CURRENCIES } from '@/lib/money/tokens';
import { CopyText } from './CopyText';
import { DateRangeAndOrder } from './DateRangeAndOrder';
import { ExportCsvLink } from './ExportCsvLink';
import { FilterBar } from './FilterBar';
import { INVOICE_STATUS_LABELS, INVOICE_TYPE_LABELS, labelOf } from './labels';
import { Pager } from './Pager';
import { useFilteredList } from './useFilteredList';
import { StatusBadge } from './StatusBadge';
import { AnyOf, Card, Field, FieldError, Select, TableBox, formatTime, tableClass } from './ui';

/** The API's /payment/list filters, applied as they change and kept in the URL. */
export function InvoicesTable() {
  const { filters, set, pager, exportHref, data, error, isFetching } = useFilteredList<InvoiceJson, Record<string, string>>('invoices', '/invoices', {
    type: '', status: '', currency: '', date_from: '', date_to: '', search: '', ordering: '-created_at',
  });

  const filtered = Object.entries(filters).some(([name, value]) => name !== 'ordering' && value !== '');
  return (
    <Card
      title="Invoices"
      actions={
        <div className="flex items-center gap-3">
          {isFetching ? <span className="text-sm text-slate-500">Loading…</span> : null}
          <ExportCsvLink href={exportHref} />
        </div>
      }
    >
      {/* Ids of their own: the page may hold a form with fields of the same names, and a shared id left the Type filter unlabelled (issue 26). */}
      <FilterBar
        columns="lg:grid-cols-7"
        filters={filters}
        search={<Field label="Search" id="invoices-search" name="search" type="search" value={filters.search} onChange={set('search')} placeholder="id, order id, address, text" />}
      >
        <Select label="Type" id="invoices-type" name="type" value={filters.type} onChange={set('type')}>
          <AnyOf values={Object.values(InvoiceType)} labels={INVOICE_TYPE_LABELS} />
        </Select>
        <Select label="Status" id="invoices-status" name="status" value={filters.status} onChange={set('status')}>
          <AnyOf values={INVOICE_STATUSES} labels={INVOICE_STATUS_LABELS} />
        </Select>
        <Select label="Currency" id="invoices-currency" name="currency" value={filters.currency} onChange={set('currency')}>
          <AnyOf values={CURRENCIES} />
          <option value={CURRENCIES.join(',')}>{CURRENCIES.join(' and ')}</option>
        </Select>
        <DateRangeAndOrder filters={filters} set={set} byStatus idPrefix="invoices-" />
      </FilterBar>
      <FieldError messages={error ? [error.message] : undefined} />
      <TableBox label="Invoices">
        <table className={tableClass} aria-label="Invoices">
          <thead>
            <tr>
              <th>ID</th>
              <th>Status</th>
              <th>Type</th>
              <th>Amount</th>
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
                  <StatusBadge status={inv.status} kind="invoice" />
                </td>
                <td>{labelOf(INVOICE_TYPE_LABELS, inv.type)}</td>
                <td>{inv.type === 'MULTIPLE' ? 'any' : `${inv.amount} USD`}</td>
                <td>{inv.currencies.join(', ')}</td>
                <td>{inv.order_id ?? '—'}</td>
                <td>
                  <CopyText text={inv.address} what={`address of invoice #${inv.id}`} short />
                </td>
                <td>{formatTime(inv.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
      {data?.count === 0 && (
        // A new merchant's empty list says how to make the first invoice, not only "Nothing found" (issue 38).
        <p className="mt-3 text-sm text-slate-700 dark:text-slate-300" data-testid="invoices-empty">
          {filtered ? (
            'No invoice matches these filters.'
          ) : (
            <>
              No invoices yet. Use &ldquo;New invoice&rdquo; above, or create one from your shop with the API (<code>POST /v1/api/payment/create</code>, see the{' '}
              <Link className="text-indigo-600 underline dark:text-indigo-400" href="/docs">
                API docs
              </Link>
              ).
            </>
          )}
        </p>
      )}
      {data && <Pager count={data.count} {...pager} />}
    </Card>
  );
}
