'use client';

import Link from 'next/link';
import { useId, useState } from 'react';
import type { DashboardTransactionPart, DashboardTransactionRow } from '@/lib/transactions/releases';
import { CopyText } from './CopyText';
import { INVOICE_TYPE_LABELS, TRANSACTION_TYPE_LABELS, labelOf, stepLabel } from './labels';
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

/** From → to, each address cut in the middle with its copy button; `others`: how many more addresses the row's payout sent to. */
function FromTo({ t, others = 0 }: { t: DashboardTransactionPart; others?: number }) {
  return (
    <span className="flex flex-col gap-1">
      <span>from <CopyText text={t.from_address} what={`sender address ${t.from_address}`} short /></span>
      <span>
        to <CopyText text={t.to_address} what={`receiving address ${t.to_address}`} short />
        {others > 0 && <> and {others} more</>}
      </span>
    </span>
  );
}

const addresses = (n: number) => `${n} ${n === 1 ? 'address' : 'addresses'}`;

/**
 * The plumbing of a group (issue 38, item 4): the gas sent and returned, the energy and bandwidth the
 * pool lent and took back, each with its own network cost; they add up to the cost on the group's row.
 */
function Plumbing({ id, head, rows }: { id: string; head: TransactionJson; rows: DashboardTransactionPart[] }) {
  const payout = head.group_targets !== null && head.group_targets > 1;
  return (
    <table id={id} className={`${tableClass} rounded bg-slate-50 dark:bg-slate-900`} aria-label="Network steps">
      <caption className="px-2 py-1 text-left text-xs text-slate-600 dark:text-slate-400">
        {payout
          ? <>The first target&apos;s transfer cost {head.network_cost_trx} TRX; with the other targets and these steps, {head.group_network_cost_trx} TRX.</>
          : <>The transfer itself cost {head.network_cost_trx} TRX; with these steps, {head.group_network_cost_trx} TRX.</>}
      </caption>
      <thead>
        <tr>
          <th>Step</th>
          <th>Amount</th>
          <th>Network cost</th>
          <th>Hash</th>
          <th>From → to</th>
          <th>Time</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((p, i) => (
          <tr key={`${p.trn_hash}-${i}`}>
            <td>{stepLabel(p)}</td>
            <td>
              {p.amount} {p.currency}
            </td>
            <td>{p.network_cost_trx} TRX</td>
            <td>
              <CopyText text={p.trn_hash} what={`hash ${p.trn_hash.slice(0, 8)}…`} short />
            </td>
            <td>
              <FromTo t={p} />
            </td>
            <td>{formatTime(p.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * One group: the payment, forward, refund or payout, its network cost folded in, and its plumbing behind
 * "Network steps". A payout's row says what it moved: the total of its targets and to how many addresses
 * (`group_amount`, `group_targets`), its first target's hash and address, the others among its steps.
 */
function GroupRows({ t }: { t: TransactionJson }) {
  const [open, setOpen] = useState(false);
  const plumbingId = useId();
  const steps = t.plumbing.length;
  const targets = t.group_targets;
  return (
    <>
      <tr>
        <td>
          {targets !== null ? <span title={t.type}>{INVOICE_TYPE_LABELS.MULTIPLE_TRANSFER}</span> : labelOf(TRANSACTION_TYPE_LABELS, t.type)}
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
          {steps > 0 && (
            <button
              type="button"
              className="mt-1 block text-xs text-indigo-600 underline dark:text-indigo-400"
              aria-expanded={open}
              aria-controls={plumbingId}
              onClick={() => setOpen((o) => !o)}
            >
              {open ? '▾' : '▸'} Network steps ({steps})
            </button>
          )}
        </td>
        <td className="whitespace-nowrap">
          {t.group_amount ?? t.amount} {t.currency}
          {targets !== null && <span className="block text-xs">to {addresses(targets)}</span>}
          {(t.send_purpose !== null || steps > 0) && <span className="block text-xs text-slate-600 dark:text-slate-400">network cost {t.group_network_cost_trx} TRX</span>}
        </td>
        <td>{t.invoice ? <Link className="text-indigo-600 underline dark:text-indigo-400" href={`/dashboard/invoices/${t.invoice}`}>#{t.invoice}</Link> : '—'}</td>
        <td>
          <CopyText text={t.trn_hash} what={`hash ${t.trn_hash.slice(0, 8)}…`} short />
        </td>
        <td>
          <FromTo t={t} others={targets === null ? 0 : targets - 1} />
        </td>
        <td>
          <Aml stored={t.aml_check} />
        </td>
        <td>{formatTime(t.created_at)}</td>
      </tr>
      {steps > 0 && open && (
        <tr>
          <td colSpan={7} className="pl-6">
            <Plumbing id={plumbingId} head={t} rows={t.plumbing} />
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * The transactions, one row per group (a payment, forward, refund or payout) with its network cost
 * folded in; the rows that made it happen behind each row's "Network steps" button (docs/dashboard.md).
 */
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
            <GroupRows key={`${t.trn_hash}-${i}`} t={t} />
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p className="text-sm text-slate-500">No transactions.</p>}
    </TableBox>
  );
}
