import type { ButtonHTMLAttributes, InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

export const inputClass =
  'mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500 dark:border-slate-700 dark:bg-slate-900';

export function Field({ label, error, hint, ...input }: InputHTMLAttributes<HTMLInputElement> & { label: string; error?: string[]; hint?: string }) {
  const id = input.id ?? input.name;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input id={id} className={inputClass} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...input} />
      {hint && !error && <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{hint}</p>}
      <FieldError id={`${id}-error`} messages={error} />
    </div>
  );
}

/**
 * A field for a Tron address money will be sent to (a held payment's return, a refund): what the
 * server checks it against is said in `hint`; browsers must not autocorrect or suggest one.
 */
export function AddressField(props: Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { label: string; error?: string[]; hint?: string }) {
  return <Field required autoComplete="off" spellCheck={false} placeholder="T…" {...props} />;
}

/** A modal dialog's box: Tailwind's reset drops the browser's centring of a modal dialog, put back here. */
export const dialogClass = 'fixed inset-0 m-auto h-fit w-full max-w-md rounded-lg bg-white p-6 text-sm text-slate-900 shadow-xl backdrop:bg-black/40 dark:bg-slate-900 dark:text-slate-100';

/**
 * A form's one-of choice as radio buttons in a fieldset with its legend, each with its words and,
 * below them, an optional hint (a dialog's "What to do with it", "Where it goes").
 */
export function RadioChoices<V extends string>({ legend, name, value, onChange, choices }: { legend: string; name: string; value: V; onChange: (v: V) => void; choices: readonly { value: V; label: string; hint?: string }[] }) {
  return (
    <fieldset className="space-y-2">
      <legend className="font-medium">{legend}</legend>
      {choices.map((c) => (
        <label key={c.value} className="flex items-start gap-2">
          <input type="radio" name={name} value={c.value} checked={value === c.value} onChange={() => onChange(c.value)} className="mt-1" />
          <span>
            {c.label}
            {c.hint && <span className="block text-xs text-slate-600 dark:text-slate-400">{c.hint}</span>}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/** A list filter's choices: "Any" (no filter), then each value of a domain enum, in words where `labels` has them. */
export function AnyOf({ values, labels = {} }: { values: readonly string[]; labels?: Record<string, string> }) {
  return (
    <>
      <option value="">Any</option>
      {values.map((v) => (
        <option key={v} value={v}>
          {labels[v] ?? v}
        </option>
      ))}
    </>
  );
}

export function Select({ label, children, ...select }: SelectHTMLAttributes<HTMLSelectElement> & { label: string }) {
  const id = select.id ?? select.name;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <select id={id} className={inputClass} {...select}>
        {children}
      </select>
    </div>
  );
}

export function FieldError({ id, messages }: { id?: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-red-600 dark:text-red-400">
      {messages.join(' ')}
    </p>
  );
}

const LOOKS = {
  primary: 'bg-indigo-600 text-white hover:bg-indigo-500',
  secondary: 'border border-slate-300 bg-white hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800',
  danger: 'bg-red-600 text-white hover:bg-red-500',
};

export function Button({ variant = 'primary', className = '', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: keyof typeof LOOKS }) {
  return <button type="button" className={`rounded-md px-3 py-2 text-sm font-medium disabled:opacity-50 ${LOOKS[variant]} ${className}`} {...props} />;
}

/** A button whose action is asked about first, in the browser's own dialog ("Revoke this key?"): `onConfirm` runs only on OK. */
export function ConfirmButton({ confirm, onConfirm, ...props }: Omit<Parameters<typeof Button>[0], 'onClick'> & { confirm: string; onConfirm: () => void }) {
  return <Button {...props} onClick={() => window.confirm(confirm) && onConfirm()} />;
}

/** A link that opens a page and looks like a button ("New invoice"). */
export const linkButtonClass = (variant: keyof typeof LOOKS) => `inline-block rounded-md px-3 py-2 text-sm font-medium ${LOOKS[variant]}`;

export function Card({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section aria-label={title} className="rounded-lg border border-slate-200 p-5 dark:border-slate-800">
      <div className="mb-4 flex items-center justify-between gap-4">
        <h2 className="text-lg font-semibold">{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

// Cells do not wrap: on a narrow screen the table scrolls sideways in its `overflow-x-auto` box (issue 26).
export const tableClass = 'w-full text-left text-sm [&_td]:whitespace-nowrap [&_th]:whitespace-nowrap [&_td]:px-2 [&_td]:py-2 [&_th]:px-2 [&_th]:py-2 [&_tbody_tr]:border-t [&_tbody_tr]:border-slate-200 dark:[&_tbody_tr]:border-slate-800';

/**
 * The box a table scrolls sideways in on a narrow screen. A box that scrolls must be reachable by
 * keyboard to be scrolled without a mouse (axe-core "scrollable-region-focusable"): it is a named
 * region and a tab stop, so arrow keys scroll it.
 */
export function TableBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    // `relative`: text for screen readers only (absolutely positioned, Tailwind's sr-only) in a
    // scrolled-away cell is clipped by the box instead of widening the page on a phone.
    <div role="region" aria-label={`${label} (scrolls sideways)`} tabIndex={0} className="relative overflow-x-auto rounded focus-visible:outline-2 focus-visible:outline-indigo-500">
      {children}
    </div>
  );
}

export function Mono({ children }: { children: ReactNode }) {
  return <code className="break-all font-mono text-xs">{children}</code>;
}

/**
 * A time as the whole dashboard shows it: in UTC and labelled so, "2026-11-23 14:05:09 UTC" (issue
 * 26). The chart and the date filters count UTC days and the payment page shows UTC: one zone
 * everywhere, never the browser's unlabelled local time (which also differs between the server's
 * render and the browser's).
 */
export function formatTime(iso: string | Date | null): string {
  if (iso === null) return '—';
  return `${(typeof iso === 'string' ? new Date(iso) : iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A two-column list of labelled facts (a detail view, an estimate). */
export function Facts({ label, rows }: { label?: string; rows: [string, ReactNode][] }) {
  return (
    <dl aria-label={label} className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="font-medium text-slate-600 dark:text-slate-400">{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
