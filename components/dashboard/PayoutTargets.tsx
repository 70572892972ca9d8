import type { InvoiceJson } from '@/lib/invoices/serialize';
import { Card, Mono, tableClass } from './ui';

interface Target {
  address: string;
  amount: number;
}

/** docs/payouts.md: a target whose send failed for good; `index` is its place in `target_wallets`. */
interface FailedTarget extends Target {
  index: number;
  error: string;
}

function TargetTable({ label, rows, currency }: { label: string; rows: (Target & { index: number; error?: string })[]; currency: string }) {
  const withError = rows.some((r) => r.error !== undefined);
  return (
    <div className="overflow-x-auto">
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
                <Mono>{r.address}</Mono>
              </td>
              <td className="whitespace-nowrap">
                {r.amount} {currency}
              </td>
              {withError && <td className="text-red-600 dark:text-red-400">{r.error}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A mass payout's targets, and those it could not pay (status ERROR) in a table
 * of their own, so they are found without reading a list of up to 1,000.
 * Indexes are the API's (from 0), as in `target_wallets[i]` and the webhook.
 */
export function PayoutTargets({ invoice }: { invoice: InvoiceJson }) {
  const currency = invoice.currency ?? '';
  const targets = (invoice.target_wallets as unknown as Target[]).map((t, index) => ({ ...t, index }));
  const failed = (invoice.failed_targets ?? []) as unknown as FailedTarget[];
  return (
    <>
      {failed.length > 0 && (
        <Card title="Failed targets">
          <p className="mb-2 text-sm">
            {failed.length} of {targets.length} targets were not paid. Their amounts stay at the top-up address and are returned on request.
          </p>
          <TargetTable label="Failed payout targets" rows={failed} currency={currency} />
        </Card>
      )}
      <Card title="Payout targets">
        <TargetTable label="Payout targets" rows={targets} currency={currency} />
      </Card>
    </>
  );
}
