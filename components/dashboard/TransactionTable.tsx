import Link from 'next/link';
import type { DashboardTransactionRow } from '@/lib/transactions/releases';
import { CopyText } from './CopyText';
import { TRANSACTION_TYPE_LABELS, labelOf } from './labels';
import { ReleaseHeld, ReleaseOutcome } from './ReleaseHeld';
import { StatusBadge } from './StatusBadge';
import { TableBox, formatTime, tableClass } from './ui';

export type TransactionJson = DashboardTransactionRow;

function Aml({ stored: check }: { stored: TransactionJson['aml_check'] }) {
  if (!check) return <>—</>;
  return (
    <span className="flex flex-wrap items-center gap-1">
      <StatusBadge status={check.status} kind="aml" /> risk {check.risk_score}/100 ({check.risk_level})
      {check.report_url && (
        <a className="text-indigo-600 underline dark:text-indigo-400" href={check.report_url} target="_blank" rel="noreferrer noopener">
          report
        </a>
      )}
    </span>
  );
}

export function TransactionTable({ rows, label }: { rows: TransactionJson[]; label: string }) {
  return (
    <TableBox label={label}>
      <table className={tableClass} aria-label={label}>
        <thead>
          <tr>
            <th>Type</th>
            <th>Amount</th>
            <th>Invoice</th>
            <th>Hash</th>
            <th>From → to</th>
            <th>AML</th>
            <th>Time</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t, i) => (
            // A hash is not unique (one transaction can carry several token transfers).
            <tr key={`${t.trn_hash}-${i}`}>
              <td>
                {labelOf(TRANSACTION_TYPE_LABELS, t.type)}
                {t.held && <ReleaseHeld hash={t.trn_hash} reason={t.held.reason} amount={t.amount} currency={t.currency} invoice={t.invoice} />}
                {t.release && <ReleaseOutcome release={t.release} />}
                {t.refund && (
                  <span className="block text-xs">
                    #{t.refund.id} of{' '}
                    <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${t.refund.invoice}`}>
                      invoice #{t.refund.invoice}
                    </Link>
                  </span>
                )}
              </td>
              <td className="whitespace-nowrap">
                {t.amount} {t.currency}
              </td>
              <td>{t.invoice ? <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${t.invoice}`}>#{t.invoice}</Link> : '—'}</td>
              <td>
                <CopyText text={t.trn_hash} what={`hash ${t.trn_hash.slice(0, 8)}…`} short />
              </td>
              <td>
                <span className="flex flex-col gap-1">
                  <span>from <CopyText text={t.from_address} what={`sender address ${t.from_address}`} short /></span>
                  <span>to <CopyText text={t.to_address} what={`receiving address ${t.to_address}`} short /></span>
                </span>
              </td>
              <td>
                <Aml stored={t.aml_check} />
              </td>
              <td>{formatTime(t.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p className="text-sm text-slate-500">No transactions.</p>}
    </TableBox>
  );
}
