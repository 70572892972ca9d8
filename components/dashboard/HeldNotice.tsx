import Link from 'next/link';
import type { HeldPayments } from '@/lib/transactions/held';
import { tokenAmountText } from '@/lib/money/tokens';

/** The overview's notice of money held at the merchant's addresses, each with a link to release it. */
export function HeldNotice({ held }: { held: HeldPayments }) {
  if (held.count === 0) return null;
  const total = held.totals.map((t) => `${tokenAmountText(t.amountUnits)} ${t.currency}`).join(' + ');
  return (
    <section aria-labelledby="held-heading" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50">
      <h2 id="held-heading" className="font-semibold">
        Money held for you: {total}
      </h2>
      <p className="mt-1">
        {held.count === 1 ? 'A payment is' : `${held.count} payments are`} kept at {held.count === 1 ? 'its address' : 'their addresses'} until you forward or return{' '}
        {held.count === 1 ? 'it' : 'them'}. Your customers are told it is held for you.
      </p>
      <ul className="mt-2 space-y-1">
        {held.listed.map((p) => (
          <li key={p.trnHash + p.currency + p.amountUnits}>
            {p.invoiceId === null ? (
              `${tokenAmountText(p.amountUnits)} ${p.currency}`
            ) : (
              <Link className="font-medium underline" href={`/dashboard/invoices/${p.invoiceId}`}>
                {tokenAmountText(p.amountUnits)} {p.currency} on invoice #{p.invoiceId}: forward or return
              </Link>
            )}
          </li>
        ))}
      </ul>
      {held.count > held.listed.length && (
        <p className="mt-1">
          and {held.count - held.listed.length} more in{' '}
          <Link className="underline" href="/dashboard/transactions">
            Transactions
          </Link>
          .
        </p>
      )}
    </section>
  );
}
