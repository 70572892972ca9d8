'use client';

import { CURRENCIES } from '@/lib/money/tokens';
import { DateRangeAndOrder } from './DateRangeAndOrder';
import { ExportCsvLink } from './ExportCsvLink';
import { FilterBar } from './FilterBar';
import { Pager } from './Pager';
import { useFilteredList } from './useFilteredList';
import { TransactionTable, type TransactionJson } from './TransactionTable';
import { MERCHANT_TRANSACTION_TYPES, TRANSACTION_TYPE_LABELS } from './labels';
import { AnyOf, Card, Field, FieldError, Select } from './ui';

/** The transactions list; its filters live in the URL (`?invoice_id=` from an invoice's page). */
export function TransactionsPanel() {
  const { filters, set, pager, exportHref, data, error } = useFilteredList<TransactionJson, Record<string, string>>('transactions', '/transactions', {
    type: '', currency: '', invoice_id: '', has_aml: '', date_from: '', date_to: '', search: '', ordering: '-created_at',
  });

  return (
    <Card title="Transactions" actions={<ExportCsvLink href={exportHref} />}>
      <FilterBar columns="lg:grid-cols-8" filters={filters} search={<Field label="Hash or address" name="search" type="search" value={filters.search} onChange={set('search')} />}>
        <Select label="Type" name="type" value={filters.type} onChange={set('type')}>
          <AnyOf values={MERCHANT_TRANSACTION_TYPES} labels={TRANSACTION_TYPE_LABELS} />
        </Select>
        <Select label="Currency" name="currency" value={filters.currency} onChange={set('currency')}>
          <AnyOf values={CURRENCIES} />
        </Select>
        <Field label="Invoice ID" name="invoice_id" inputMode="numeric" value={filters.invoice_id} onChange={set('invoice_id')} />
        <Select label="AML check" name="has_aml" value={filters.has_aml} onChange={set('has_aml')}>
          <option value="">Any</option>
          <option value="true">Checked</option>
          <option value="false">Not checked</option>
        </Select>
        <DateRangeAndOrder filters={filters} set={set} />
      </FilterBar>
      <FieldError messages={error ? [error.message] : undefined} />
      <TransactionTable rows={data?.results ?? []} label="Transactions" />
      {data && <Pager count={data.count} {...pager} />}
    </Card>
  );
}
