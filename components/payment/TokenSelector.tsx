'use client';

import type { Currency } from '@/lib/money/tokens';

const LABELS: Record<Currency, string> = { TRX: 'TRX', USDT: 'USDT (TRC-20)' };

/** Native radio buttons, styled as a segmented control: arrow keys and screen readers work as usual. */
export function TokenSelector({ tokens, value, onChange, legend }: { tokens: readonly Currency[]; value: Currency; onChange: (c: Currency) => void; legend: string }) {
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">{legend}</legend>
      <div className="grid auto-cols-fr grid-flow-col gap-2">
        {tokens.map((token) => (
          <label
            key={token}
            className="cursor-pointer rounded-lg border border-slate-300 bg-white px-3 py-2 text-center text-sm font-semibold text-slate-800 has-checked:border-sky-700 has-checked:bg-sky-700 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-offset-2 has-focus-visible:outline-sky-600 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100 dark:has-checked:border-sky-400 dark:has-checked:bg-sky-400 dark:has-checked:text-slate-950"
          >
            <input type="radio" name="token" value={token} checked={value === token} onChange={() => onChange(token)} className="sr-only" />
            {LABELS[token]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
