'use client';

import { useEffect, useState } from 'react';
import { fill } from '@/lib/i18n/fill';
import type { Messages } from '@/lib/i18n/en';

const NOTICE_SECONDS = 5;

/**
 * Counts down, then sends the customer back to the merchant; the link works at once. Not `auto`
 * (an overpaid invoice, whose text the customer must be able to read: issue 38): the link only.
 */
export function RedirectNotice({ url, t, auto = true }: { url: string; t: Messages; auto?: boolean }) {
  const [seconds, setSeconds] = useState(NOTICE_SECONDS);
  useEffect(() => {
    if (!auto) return;
    if (seconds <= 0) {
      window.location.assign(url);
      return;
    }
    const timer = setTimeout(() => setSeconds((s) => s - 1), 1_000);
    return () => clearTimeout(timer);
  }, [auto, seconds, url]);
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-3 text-center sm:p-4 dark:border-slate-700 dark:bg-slate-900">
      {auto && (
        <p className="text-sm text-slate-700 dark:text-slate-300" aria-live="polite">
          {fill(t.redirectNotice, { seconds: Math.max(seconds, 0) })}
        </p>
      )}
      <a href={url} className="mt-2 inline-block font-semibold text-sky-800 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 dark:text-sky-300">
        {t.redirectLink}
      </a>
    </div>
  );
}
