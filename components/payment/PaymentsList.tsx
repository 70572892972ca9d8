import type { PublicPayment } from '@/lib/invoices/publicView';
import type { Messages } from '@/lib/i18n/en';

export function PaymentsList({ payments, t, locale }: { payments: readonly PublicPayment[]; t: Messages; locale: string }) {
  return (
    <section aria-labelledby="payments-heading" className="rounded-xl border border-slate-200 bg-white p-3 sm:p-4 dark:border-slate-700 dark:bg-slate-900">
      <h2 id="payments-heading" className="text-base font-semibold">
        {t.paymentsTitle}
      </h2>
      {payments.length === 0 ? (
        <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{t.noPayments}</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-200 dark:divide-slate-700" data-testid="payments">
          {payments.map((p) => (
            <li key={`${p.txid}:${p.currency}:${p.amount}`} className="py-2 text-sm">
              <div className="flex justify-between gap-2">
                <span className="shrink-0 font-mono font-semibold whitespace-nowrap">
                  {p.amount} {p.currency}
                </span>
                <span className="text-right">
                  {t.paymentState[p.state]}
                  {p.confirmations && (
                    <span className="ml-1 text-xs text-slate-600 tabular-nums dark:text-slate-400" data-testid="payment-confirmations">
                      {p.confirmations.blocks}/{p.confirmations.needed}
                    </span>
                  )}
                </span>
              </div>
              {p.state === 'held' && <p className="text-xs text-slate-700 dark:text-slate-300">{t.heldReason[p.held_reason ?? 'other']}</p>}
              <div className="flex justify-between gap-2 text-xs text-slate-600 dark:text-slate-400">
                {p.explorer_url ? (
                  // The page's address carries the link key: no referrer goes with the link.
                  <a href={p.explorer_url} target="_blank" rel="noopener noreferrer" className="truncate font-mono underline" title={t.viewOnExplorer}>
                    <span className="sr-only">{t.viewOnExplorer}: </span>
                    {p.txid}
                  </a>
                ) : (
                  <span className="truncate font-mono" title={p.txid}>
                    <span className="sr-only">{t.transaction} </span>
                    {p.txid}
                  </span>
                )}
                <time dateTime={p.created_at} className="shrink-0">
                  {new Date(p.created_at).toLocaleString(locale, { dateStyle: 'short', timeStyle: 'short', timeZone: 'UTC' })} UTC
                </time>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
