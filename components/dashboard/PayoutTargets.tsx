import type { ReactNode } from 'react';
import type { InvoiceJson } from '@/lib/invoices/serialize';
import type { PayoutTargetJson } from '@/lib/invoices/storedTargets';
import { CopyText } from './CopyText';
import { Card, TableBox, tableClass } from './ui';

function TargetTable({ label, rows, currency }: { label: string; rows: (PayoutTargetJson & { index: number; error?: string })[]; currency: string }) {
  const withError = rows.some((r) => r.error !== undefined);
  return (
    <TableBox label={label}>
      <table aria-label={label} className={tableClass}>
        <thead>
          <tr>
            <th>Index</th>
            <th>Address</th>
            <th>Amount</th>
            {withError && <th>Error</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.index}>
              <td>{r.index}</td>
              <td>
                <CopyText text={r.address} what={`address of target ${r.index}`} short />
              </td>
              <td className="whitespace-nowrap">
                {r.amount} {currency}
              </td>
              {withError && (
                <td>
                  <span className="block min-w-[12rem] whitespace-normal text-red-600 dark:text-red-400">{r.error}</span>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableBox>
  );
}

/**
 * A mass payout's targets, and those it could not pay (status ERROR) in a table
 * of their own, so they are found without reading a list of up to 1,000.
 * Indexes are the API's (from 0), as in `target_wallets[i]` and the webhook. `returnCard`: what can
 * go back (the unpaid amounts, or a COMPLETED payout's excess), shown after the failed targets.
 */
export function PayoutTargets({ invoice, returnCard }: { invoice: InvoiceJson; returnCard?: ReactNode }) {
  const currency = invoice.currency ?? '';
  // `{}` on an invoice that is not a payout (spec 2.1).
  const targets = (Array.isArray(invoice.target_wallets) ? invoice.target_wallets : []).map((t, index) => ({ ...t, index }));
  // docs/payouts.md: targets whose send failed for good; `index` is their place in `target_wallets`.
  const failed = invoice.failed_targets ?? [];
  return (
    <>
      {failed.length > 0 && (
        <Card title="Failed targets">
          <p className="mb-2 text-sm">
            {failed.length} of {targets.length} targets were not paid. Their amounts stay at the top-up address until you return them below.
          </p>
          <TargetTable label="Failed payout targets" rows={failed} currency={currency} />
        </Card>
      )}
      {returnCard}
      <Card title="Payout targets">
        <TargetTable label="Payout targets" rows={targets} currency={currency} />
      </Card>
    </>
  );
}
