'use client';

import { AUDIT_ACTIONS, type AuditAction } from '@/lib/audit/record';
import type { AuditJson } from '@/lib/audit/list';
import { ExportCsvLink } from './ExportCsvLink';
import { FilterBar } from './FilterBar';
import { Pager } from './Pager';
import { useFilteredList } from './useFilteredList';
import { AnyOf, Card, Field, FieldError, Mono, Select, TableBox, formatTime, tableClass } from './ui';

/** Each action in words, as the filter offers it and the table shows it (the CSV keeps the names, docs/operations.md). */
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Sign-in failed',
  key_created: 'API key created',
  key_revoked: 'API key revoked',
  key_changed: 'API key IP allow-list changed',
  payout_wallet_changed: 'Payout wallet changed',
  webhook_url_changed: 'Webhook URL changed',
  webhook_secret_changed: 'Webhook secret changed',
  ip_whitelist_changed: 'IP whitelist changed',
  payout_created: 'Payout created',
  payout_returned: 'Payout return asked for',
  held_released: 'Held payment released',
  refund_created: 'Refund created',
  settings_changed: 'Settings changed',
  two_factor_changed: 'Two-factor sign-in changed',
  member_invited: 'Member invited',
  member_invitation_canceled: 'Invitation canceled',
  member_added: 'Member added',
  member_role_changed: 'Member role changed',
  member_removed: 'Member removed',
};

function actorText(r: AuditJson): string {
  if (r.actor_kind === 'api_key') return `API key ${r.actor ?? ''} (#${r.api_key_id})`;
  if (r.actor_kind === 'system') return `System: ${r.actor ?? ''}`;
  return r.actor ?? '';
}

/** Before and after as compact JSON; a value the log does not keep (a secret, nothing before) is a dash. */
function Value({ value }: { value: unknown }) {
  return value === null || value === undefined ? <span aria-label="none">—</span> : <Mono>{JSON.stringify(value)}</Mono>;
}

/** The store's audit log (docs/dashboard.md, "Audit log"): read only, newest first, filtered by action and UTC day; the filters live in the URL. */
export function AuditLog() {
  const { filters, set, pager, exportHref, data, error } = useFilteredList<AuditJson, Record<string, string>>('audit', '/audit', { action: '', date_from: '', date_to: '' });

  return (
    <Card title="Audit log" actions={<ExportCsvLink href={exportHref} />}>
      <FilterBar
        columns="lg:grid-cols-3"
        filters={filters}
        search={
          <Select label="Action" id="audit_action" name="action" value={filters.action} onChange={set('action')}>
            <AnyOf values={AUDIT_ACTIONS} labels={AUDIT_ACTION_LABELS} />
          </Select>
        }
      >
        <Field label="From (UTC day)" id="audit_date_from" name="date_from" type="date" value={filters.date_from} onChange={set('date_from')} />
        <Field label="To (UTC day)" id="audit_date_to" name="date_to" type="date" value={filters.date_to} onChange={set('date_to')} />
      </FilterBar>
      <FieldError messages={error ? [error.message] : undefined} />
      <TableBox label="Audit log entries">
        <table className={tableClass} aria-label="Audit log entries">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>By</th>
              <th>IP address</th>
              <th>Subject</th>
              <th>Before</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {(data?.results ?? []).map((r) => (
              <tr key={r.id} data-testid="audit-row">
                <td>{formatTime(r.created_at)}</td>
                <td>{AUDIT_ACTION_LABELS[r.action as AuditAction] ?? r.action}</td>
                <td>{actorText(r)}</td>
                <td>{r.client_ip ?? '—'}</td>
                <td>{r.subject ?? '—'}</td>
                <td className="max-w-[20rem] !whitespace-normal">
                  <Value value={r.before} />
                </td>
                <td className="max-w-[20rem] !whitespace-normal">
                  <Value value={r.after} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableBox>
      {data && <Pager count={data.count} {...pager} />}
    </Card>
  );
}
