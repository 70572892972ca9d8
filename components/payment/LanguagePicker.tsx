'use client';

import { LOCALE_COOKIE, LOCALE_NAMES, LOCALES, type Locale } from '@/lib/i18n';

/** A year: the customer's choice outlives the invoice, for the next one from any merchant. */
const COOKIE_MAX_AGE = 365 * 24 * 3600;

/** Kept for the payment pages only, then the page is rendered again in that language. */
function switchTo(next: Locale) {
  document.cookie = `${LOCALE_COOKIE}=${next}; path=/payment; max-age=${COOKIE_MAX_AGE}; samesite=lax`;
  window.location.reload();
}

/**
 * The page's language, visible and changeable (issue 26): by default the browser's
 * Accept-Language picks it; a choice here is kept in a cookie for the payment pages only and
 * the page reloads in that language (server-rendered, so the status texts change with it).
 */
export function LanguagePicker({ locale, label }: { locale: Locale; label: string }) {
  function choose(next: Locale) {
    if (next !== locale) switchTo(next);
  }
  return (
    <nav aria-label={label} className="flex justify-end gap-1 text-sm" data-testid="language-picker">
      {LOCALES.map((l) => (
        <button
          key={l}
          type="button"
          lang={l}
          aria-pressed={l === locale}
          onClick={() => choose(l)}
          className="rounded-md px-2 py-1 text-slate-700 hover:bg-slate-200 aria-pressed:bg-slate-200 aria-pressed:font-semibold dark:text-slate-300 dark:hover:bg-slate-800 dark:aria-pressed:bg-slate-800"
        >
          {LOCALE_NAMES[l]}
        </button>
      ))}
    </nav>
  );
}
