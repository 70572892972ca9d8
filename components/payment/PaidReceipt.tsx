'use client';

import type { Messages } from '@/lib/i18n/en';
import { secondaryButtonClass } from './CopyButton';

/**
 * A paid invoice with nowhere to return to (no `redirect_url`) used to end on "Paid. Thank you!" and
 * nothing else (issue 38): the page says what the customer can keep, and offers to print or save it.
 * Only in the full view: the link the customer was given is what shows the payments (the receipt).
 */
export function PaidReceipt({ t }: { t: Messages }) {
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-3 text-sm text-slate-700 print:hidden sm:p-4 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300" data-testid="paid-receipt">
      <p>{t.receiptNote}</p>
      <button
        type="button"
        onClick={() => window.print()}
        className={`mt-3 ${secondaryButtonClass}`}
      >
        {t.printReceipt}
      </button>
    </div>
  );
}
