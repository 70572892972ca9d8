import { Field, Select } from './ui';

type Setter = (name: 'date_from' | 'date_to' | 'ordering') => (e: { target: { value: string } }) => void;

/** The date range and ordering filters every list shares; `byStatus` adds the status orderings. `idPrefix` keeps their ids unique on the page. */
export function DateRangeAndOrder({ filters, set, byStatus = false, idPrefix = '' }: { filters: Record<string, string | undefined>; set: Setter; byStatus?: boolean; idPrefix?: string }) {
  return (
    <>
      <Field label="From (UTC day)" id={`${idPrefix}date_from`} name="date_from" type="date" value={filters.date_from} onChange={set('date_from')} />
      <Field label="To (UTC day)" id={`${idPrefix}date_to`} name="date_to" type="date" value={filters.date_to} onChange={set('date_to')} />
      <Select label="Order by" id={`${idPrefix}ordering`} name="ordering" value={filters.ordering} onChange={set('ordering')}>
        <option value="-created_at">Newest first</option>
        <option value="created_at">Oldest first</option>
        <option value="-amount">Amount, high to low</option>
        <option value="amount">Amount, low to high</option>
        {byStatus && <option value="status">Status</option>}
        {byStatus && <option value="-status">Status, reversed</option>}
      </Select>
    </>
  );
}
