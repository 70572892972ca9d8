'use client';

import { useCopy } from '@/components/useCopy';

/**
 * An address or hash with a copy button (issue 26). In a table it is cut in the
 * middle ("TGLheo1K…nN5pLPd": the ends are what people compare) instead of wrapping
 * into a tall column on a phone; the element keeps the whole text, so it is read out,
 * selected and searched in full, and it is in the title for a pointer.
 */
export function CopyText({ text, what, short = false }: { text: string; what: string; short?: boolean }) {
  const { copied, copy } = useCopy(text);
  const tail = short ? text.slice(-8) : '';
  return (
    <span className="relative inline-flex max-w-full items-center gap-1 align-middle">
      <code title={text} className={`flex min-w-0 font-mono text-xs ${short ? 'max-w-[11rem]' : 'break-all'}`}>
        {short ? (
          <>
            <span className="truncate">{text.slice(0, -8)}</span>
            <span className="shrink-0">{tail}</span>
          </>
        ) : (
          text
        )}
      </code>
      {/* Named "Copy <what>", then "Copied <what>": the words on the button begin its name (axe-core
          "label-content-name-mismatch"), and what it copies is said to screen readers only. */}
      <button
        type="button"
        onClick={copy}
        className="shrink-0 rounded border border-slate-300 px-1.5 py-0.5 text-xs font-medium hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800"
      >
        <span aria-live="polite">{copied ? 'Copied' : 'Copy'}</span>
        <span className="sr-only"> {what}</span>
      </button>
    </span>
  );
}
