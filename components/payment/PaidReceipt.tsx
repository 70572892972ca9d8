'use client';

import type { Messages } from '@/lib/i18n/en';

/**
 * A paid invoice with nowhere to return to (no `redirect_url`) used to end on "Paid. Thank you!" and
 * nothing else (issue 38): the page says what the customer can keep, and offers to print or save it.
 * Only in the full view: the link the customer was given is what shows the payments (the receipt).
 */
export function PaidReceipt({ t }: { t: Messages }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 text-sm text-slate-700 print:hidden dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300" data-testid="paid-receipt">
      <p>{t.receiptNote}</p>
      <button
        type="button"
        onClick={() => window.print()}
        className="mt-3 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700"
      >
        {t.printReceipt}
      </button>
    </div>
  );
}
